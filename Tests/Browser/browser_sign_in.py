"""Drives a headless Chromium (Debian's chromium and chromium-driver, Selenium from PyPI) through the
example web app and the emulator's Universal Login page, as a user would. Run by
Tests/AuthHubHummingbirdTests/BrowserSignInTests.swift, which starts both servers:

    python browser_sign_in.py BASE_URL EMAIL PASSWORD SCREENSHOT_DIR

Prints one line per step; exits 0 when every step held, 1 otherwise (with a screenshot of the failing
page, and of every earlier step, in SCREENSHOT_DIR).
"""
import json
import os
import subprocess
import sys
import urllib.request
from urllib.parse import parse_qs, quote, urlparse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser_common import (EC, By, base, check_page, driver, email, forget_provider_session, login, password,  # noqa: E402
                            provider_path, remove_link, run, shots, step, totp, wait)


def email_codes(provider_base):
    """Codes by email: the address form, then the code the emulator's outbox holds for it (the
    mailbox of the test)."""
    address = "codes@example.com"
    driver.find_element(By.LINK_TEXT, "Get codes by email").click()
    wait.until(EC.presence_of_element_located((By.ID, "ah-value")))
    check_page("codes by email: the address")
    field = driver.find_element(By.ID, "ah-value")
    field.clear()
    field.send_keys(address)
    field.submit()
    wait.until(EC.presence_of_element_located((By.ID, "ah-code")))
    assert address in driver.find_element(By.CSS_SELECTOR, ".ah-lead").text
    check_page("codes by email: the code")
    step("codes by email: the code was sent")
    with urllib.request.urlopen(provider_base + "/__emulator/outbox?to=" + quote(address, safe=""), timeout=10) as reply:
        code = json.load(reply)["messages"][-1]["code"]
    driver.find_element(By.ID, "ah-code").send_keys(code)
    driver.find_element(By.CSS_SELECTOR, "form.ah-form button").click()
    wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, ".ah-notice")))
    assert "Codes by email are on." in driver.find_element(By.CSS_SELECTOR, ".ah-notice").text
    assert address in driver.find_element(By.ID, "ah-methods").find_element(By.XPATH, "..").text
    step("codes by email added")


def account_pages(provider_base):
    """The account pages: the overview, an authenticator app added from the QR code read off the page
    (zbarimg, Debian's zbar-tools) with a code from oathtool, recovery codes shown once, codes by email."""
    driver.find_element(By.ID, "account").click()
    wait.until(EC.presence_of_element_located((By.ID, "ah-methods")))
    check_page("account overview")
    step("account overview")
    driver.find_element(By.LINK_TEXT, "Add an authenticator app").click()
    wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, ".ah-qr svg")))
    check_page("add an authenticator app")
    # The check fetched the page again, which started a new enrollment: show the current one.
    driver.refresh()
    wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, ".ah-qr svg")))
    step("add an authenticator app: QR code and key")
    qr = os.path.join(shots, "qr.png")
    driver.find_element(By.CSS_SELECTOR, ".ah-qr svg").screenshot(qr)
    uri = subprocess.run(["zbarimg", "--quiet", "--raw", qr], check=True, capture_output=True, text=True).stdout.strip()
    assert uri.startswith("otpauth://totp/"), uri
    secret = parse_qs(urlparse(uri).query)["secret"][0]
    shown = driver.find_element(By.CSS_SELECTOR, ".ah-secret").text.replace(" ", "")
    assert shown == secret, "the key for manual entry is the QR code's"
    driver.find_element(By.ID, "ah-code").send_keys(totp(secret))
    driver.find_element(By.CSS_SELECTOR, "form.ah-form button").click()
    wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, ".ah-notice")))
    assert "authenticator app was added" in driver.find_element(By.CSS_SELECTOR, ".ah-notice").text
    assert "Authenticator app" in driver.page_source
    step("authenticator app added")
    driver.find_element(By.LINK_TEXT, "Create recovery codes").click()
    wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, ".ah-codes li")))
    check_page("recovery codes")
    driver.refresh()  # the check's fetch made a new set: show the one the server keeps
    wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, ".ah-codes li")))
    codes = [element.text for element in driver.find_elements(By.CSS_SELECTOR, ".ah-codes li")]
    assert len(codes) >= 1 and all(codes), codes
    step("recovery codes shown once")
    driver.find_element(By.CSS_SELECTOR, "form.ah-form button").click()
    wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, ".ah-notice")))
    step("recovery codes saved")
    email_codes(provider_base)
    return secret


def main():
    driver.get(base + "/")
    wait.until(EC.presence_of_element_located((By.LINK_TEXT, "Sign in with auth0")))
    step("home, signed out")
    driver.find_element(By.LINK_TEXT, "Sign in with auth0").click()
    wait.until(EC.presence_of_element_located((By.NAME, "email")))
    provider_base = provider_path()
    login("not the password")
    wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "p.error")))
    assert "Wrong email or password" in driver.find_element(By.CSS_SELECTOR, "p.error").text
    step("wrong password shows the login page's error")
    login(password)
    wait.until(EC.url_to_be(base + "/profile"))
    assert driver.find_element(By.ID, "email").text == email, driver.page_source[:500]
    step("profile shows the user's email")
    document = driver.execute_script("return fetch('/profile.json', {credentials: 'same-origin'}).then(r => r.json())")
    assert document["claims"]["email"] == email and document["provider"] == "auth0", document
    step("the page's script calls the JSON route with the session")
    check_page("profile")
    secret = account_pages(provider_base)
    # Signed out and in again: the provider now asks for the app's code.
    driver.get(base + "/profile")
    driver.find_element(By.ID, "signout").click()
    wait.until(EC.url_to_be(base + "/"))
    check_page("home, signed out")
    forget_provider_session(provider_base)
    driver.find_element(By.LINK_TEXT, "Sign in with auth0").click()
    login(password)
    wait.until(EC.presence_of_element_located((By.NAME, "otp")))
    step("the provider asks for the second factor")
    login(password, otp_secret=secret)
    wait.until(EC.url_to_be(base + "/profile"))
    step("signed in with the second factor")
    # Removing the authenticator app: the confirmation page, then the removal (the sign-in is recent).
    driver.find_element(By.ID, "account").click()
    wait.until(EC.presence_of_element_located((By.ID, "ah-methods")))
    remove_link("Authenticator app").click()
    wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "form.ah-form button.ah-danger")))
    check_page("confirm removing a method")
    step("confirm removing the authenticator app")
    driver.find_element(By.CSS_SELECTOR, "form.ah-form button.ah-danger").click()
    wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, ".ah-notice")))
    assert "removed" in driver.find_element(By.CSS_SELECTOR, ".ah-notice").text
    assert "Authenticator app" not in driver.find_element(By.ID, "ah-methods").find_element(By.XPATH, "..").text
    step("authenticator app removed")
    driver.get(base + "/profile")
    driver.find_element(By.ID, "signout").click()
    wait.until(EC.url_to_be(base + "/"))
    assert "You are signed out." in driver.page_source
    step("signed out")
    status = driver.execute_script("return fetch('/profile.json', {credentials: 'same-origin'}).then(r => r.status)")
    assert status == 401, status
    step("the JSON route refuses the signed-out browser")
    driver.get(base + "/auth/second-factor")
    wait.until(EC.presence_of_element_located((By.ID, "ah-title")))
    assert "This sign-in is over" in driver.find_element(By.ID, "ah-title").text
    check_page("a second step that is over")
    step("a second step with no waiting sign-in says to sign in again")


run(main)
