"""The web core's own sign-in pages in a headless Chromium (see browser_common.py), through an example
app with three providers that have no redirect: the emulator's Firebase project (email and password,
TOTP second factors of its own), its Openfort project (email and password, AuthHub-held factors on)
and its Turnkey organization (passkeys). Run by Tests/AuthHubHummingbirdTests/BrowserSignInTests.swift:

    python browser_password_providers.py BASE_URL EMAIL PASSWORD SCREENSHOT_DIR

Firebase: a wrong password shows the form's error; an authenticator app is added at Firebase from the
QR code (zbarimg) with a code from oathtool; the password and the name are changed on their pages; the
next sign-in asks for Firebase's code on AuthHub's second-step page; the account is deleted, after
which its password no longer signs in. Openfort: an authenticator app and recovery codes kept by
AuthHub; the next sign-in asks for AuthHub's code; an old sign-in removing the app is sent through the
sign-in form again ("Confirm it is you") and a recovery code, then back to the confirmation. Turnkey:
its passkey page signs in with the user's passkey in Chromium's virtual authenticator; a second
passkey is added at Turnkey, signs in, and the first is removed.
"""
import base64
import json
import os
import subprocess
import sys
import time
from urllib.parse import parse_qs, urlparse

from selenium.webdriver.common.virtual_authenticator import Credential

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser_common import (EC, By, add_virtual_authenticator, base, check_page, driver, email, password, remove_link, run, shots, step,  # noqa: E402
                            totp, wait)

NEW_PASSWORD = "a brand new passphrase 7"


def form_sign_in(secret, expect_error=False):
    """Fills the sign-in form of AuthHub's own the browser is on and sends it."""
    wait.until(EC.presence_of_element_located((By.ID, "ah-password")))
    field = driver.find_element(By.ID, "ah-email")
    field.clear()
    field.send_keys(email)
    driver.find_element(By.ID, "ah-password").send_keys(secret)
    driver.find_element(By.CSS_SELECTOR, "form.ah-form button[type=submit]").click()
    if expect_error:
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, ".ah-error[role=alert]")))


def sign_out():
    driver.get(base + "/profile")
    driver.find_element(By.ID, "signout").click()
    wait.until(EC.url_to_be(base + "/"))


def open_form(provider):
    driver.get(base + "/")
    driver.find_element(By.LINK_TEXT, f"Sign in with {provider}").click()
    wait.until(EC.presence_of_element_located((By.ID, "ah-password")))


def add_authenticator_app(name):
    """Adds an authenticator app on the account page from the QR code read off the page; returns its key."""
    driver.get(base + "/account")
    driver.find_element(By.LINK_TEXT, "Add an authenticator app").click()
    wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, ".ah-qr svg")))
    driver.refresh()  # a fresh enrollment for this page (as a user reloading it would get)
    wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, ".ah-qr svg")))
    qr = os.path.join(shots, f"qr-{name}.png")
    driver.find_element(By.CSS_SELECTOR, ".ah-qr svg").screenshot(qr)
    uri = subprocess.run(["zbarimg", "--quiet", "--raw", qr], check=True, capture_output=True, text=True).stdout.strip()
    assert uri.startswith("otpauth://totp/"), uri
    secret = parse_qs(urlparse(uri).query)["secret"][0]
    assert driver.find_element(By.CSS_SELECTOR, ".ah-secret").text.replace(" ", "") == secret
    driver.find_element(By.ID, "ah-code").send_keys(totp(secret))
    driver.find_element(By.CSS_SELECTOR, "form.ah-form button").click()
    wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, ".ah-notice")))
    assert "authenticator app was added" in driver.find_element(By.CSS_SELECTOR, ".ah-notice").text, driver.page_source[:400]
    step(f"{name}: authenticator app added from the QR code")
    return secret


def second_step_with_code(code):
    wait.until(EC.url_to_be(base + "/auth/second-factor"))
    field = wait.until(EC.visibility_of_element_located((By.ID, "ah-totp")))
    field.send_keys(code)
    field.submit()


def firebase():
    open_form("firebase")
    check_page("sign-in form")
    driver.refresh()  # the check's fetch started another pre-session: use the one the browser now holds
    wait.until(EC.presence_of_element_located((By.ID, "ah-password")))
    step("firebase: the sign-in form")
    form_sign_in("not the password", expect_error=True)
    assert "Wrong email or password" in driver.find_element(By.CSS_SELECTOR, ".ah-error[role=alert]").text
    step("firebase: a wrong password shows the form's error")
    check_page("sign-in form with an error")
    open_form("firebase")  # the check's fetch started another pre-session: a fresh form
    form_sign_in(password)
    wait.until(EC.url_to_be(base + "/profile"))
    assert driver.find_element(By.ID, "email").text == email
    step("firebase: signed in through the form")

    secret = add_authenticator_app("firebase")

    driver.get(base + "/account")
    driver.find_element(By.LINK_TEXT, "Change your password").click()
    wait.until(EC.presence_of_element_located((By.ID, "ah-new")))
    check_page("change the password")
    driver.find_element(By.ID, "ah-new").send_keys(NEW_PASSWORD)
    driver.find_element(By.ID, "ah-repeat").send_keys(NEW_PASSWORD)
    driver.find_element(By.CSS_SELECTOR, "form.ah-form button[type=submit]").click()
    wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, ".ah-notice")))
    assert "password was changed" in driver.find_element(By.CSS_SELECTOR, ".ah-notice").text
    step("firebase: password changed")

    driver.find_element(By.LINK_TEXT, "Edit your profile").click()
    wait.until(EC.presence_of_element_located((By.ID, "ah-name")))
    check_page("edit the profile")
    driver.find_element(By.ID, "ah-name").send_keys("Tess Browser")
    driver.find_element(By.CSS_SELECTOR, "form.ah-form button[type=submit]").click()
    wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, ".ah-notice")))
    assert "Tess Browser" in driver.page_source, "the account page shows the new name"
    step("firebase: name changed")

    sign_out()
    open_form("firebase")
    form_sign_in(NEW_PASSWORD)
    second_step_with_code(totp(secret, ahead=1))
    wait.until(EC.url_to_be(base + "/profile"))
    step("firebase: the new password and Firebase's second factor sign in")

    driver.get(base + "/account")
    driver.find_element(By.LINK_TEXT, "Delete my account").click()
    wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "form.ah-form button.ah-danger")))
    check_page("confirm deleting the account")
    driver.find_element(By.CSS_SELECTOR, "form.ah-form button.ah-danger").click()
    wait.until(EC.url_to_be(base + "/"))
    status = driver.execute_script("return fetch('/profile.json', {credentials: 'same-origin'}).then(r => r.status)")
    assert status == 401, status
    step("firebase: account deleted, the browser signed out")
    open_form("firebase")
    form_sign_in(NEW_PASSWORD, expect_error=True)
    assert "Wrong email or password" in driver.find_element(By.CSS_SELECTOR, ".ah-error[role=alert]").text
    step("firebase: the deleted account's password no longer signs in")


def openfort():
    open_form("openfort")
    form_sign_in(password)
    wait.until(EC.url_to_be(base + "/profile"))
    step("openfort: signed in through the form")
    secret = add_authenticator_app("openfort")
    assert "kept by this app" in driver.page_source
    driver.find_element(By.LINK_TEXT, "Create recovery codes").click()
    wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, ".ah-codes li")))
    driver.refresh()
    wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, ".ah-codes li")))
    codes = [element.text for element in driver.find_elements(By.CSS_SELECTOR, ".ah-codes li")]
    driver.find_element(By.CSS_SELECTOR, "form.ah-form button").click()
    wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, ".ah-notice")))
    step("openfort: recovery codes kept by AuthHub")

    sign_out()
    open_form("openfort")
    form_sign_in(password)
    wait.until(EC.url_to_be(base + "/auth/second-factor"))
    check_page("second step after the form")
    second_step_with_code(totp(secret, ahead=1))
    wait.until(EC.url_to_be(base + "/profile"))
    step("openfort: AuthHub's code after Openfort's password")

    # An old sign-in (past the test app's step-up window): removing the app goes through the form again.
    time.sleep(int(os.environ.get("AUTHHUB_STEP_UP_SECONDS", "15")) + 1)
    driver.get(base + "/account")
    remove_link("Authenticator app").click()
    wait.until(EC.presence_of_element_located((By.ID, "ah-password")))
    assert "Confirm it is you" in driver.page_source
    assert driver.find_element(By.ID, "ah-email").get_attribute("value") == email
    check_page("step-up form")
    driver.refresh()
    wait.until(EC.presence_of_element_located((By.ID, "ah-password")))
    step("openfort: an old sign-in is asked for the password again")
    form_sign_in(password)
    wait.until(EC.url_to_be(base + "/auth/second-factor"))
    details = driver.find_element(By.CSS_SELECTOR, "details.ah-alt")
    details.find_element(By.TAG_NAME, "summary").click()
    field = driver.find_element(By.ID, "ah-recovery")
    field.send_keys(codes[0])
    field.submit()
    wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "form.ah-form button.ah-danger")))
    assert "/account/confirm" in driver.current_url, driver.current_url
    driver.find_element(By.CSS_SELECTOR, "form.ah-form button.ah-danger").click()
    wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, ".ah-notice")))
    assert "removed" in driver.find_element(By.CSS_SELECTOR, ".ah-notice").text
    step("openfort: back at the confirmation, the app removed")
    sign_out()


def b64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def turnkey():
    """Turnkey's passkey page: the user's passkey (registered at Turnkey by the test, loaded into
    Chromium's virtual authenticator) signs the login; a second passkey (another device's) is added at
    Turnkey from the account page and signs in; the first is removed."""
    passkey = json.loads(os.environ["AUTHHUB_TURNKEY_PASSKEY"])
    add_virtual_authenticator()
    driver.add_credential(Credential.create_resident_credential(bytearray(b64url(passkey["id"])), passkey["rpId"],
                                                                bytearray(b64url(passkey["userHandle"])), b64url(passkey["privateKey"]), 0))
    driver.get(base + "/")
    driver.find_element(By.LINK_TEXT, "Sign in with turnkey").click()
    wait.until(EC.visibility_of_element_located((By.ID, "ah-passkey")))
    check_page("passkey sign-in page")
    driver.refresh()  # the check's fetch started another pre-session: sign the one the browser holds
    wait.until(EC.visibility_of_element_located((By.ID, "ah-passkey")))
    step("turnkey: the passkey page")
    driver.find_element(By.ID, "ah-passkey").click()
    wait.until(EC.url_to_be(base + "/profile"))
    step("turnkey: signed in with the passkey")

    driver.get(base + "/account")
    wait.until(EC.presence_of_element_located((By.ID, "ah-methods")))
    rows = len(driver.find_elements(By.XPATH, "//tr[td/strong[text()='Passkey']]"))
    assert rows == 1, f"{rows} passkeys listed"
    check_page("account with Turnkey's passkeys")
    # Another device: this authenticator forgets the first passkey (WebAuthn refuses to register an
    # authenticator twice) and makes the second.
    driver.remove_all_credentials()
    driver.find_element(By.LINK_TEXT, "Add a passkey").click()
    wait.until(EC.visibility_of_element_located((By.ID, "ah-passkey")))
    driver.find_element(By.ID, "ah-passkey").click()
    wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, ".ah-notice")))
    assert "passkey was added" in driver.find_element(By.CSS_SELECTOR, ".ah-notice").text, driver.page_source[:400]
    assert len(driver.find_elements(By.XPATH, "//tr[td/strong[text()='Passkey']]")) == 2
    step("turnkey: a second passkey added at Turnkey")
    sign_out()
    driver.find_element(By.LINK_TEXT, "Sign in with turnkey").click()
    wait.until(EC.visibility_of_element_located((By.ID, "ah-passkey"))).click()
    wait.until(EC.url_to_be(base + "/profile"))
    step("turnkey: the second passkey signs in")
    driver.get(base + "/account")
    links = driver.find_elements(By.XPATH, "//tr[td/strong[text()='Passkey']]//a[contains(@class, 'ah-link-danger')]")
    links[0].click()
    wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "form.ah-form button.ah-danger")))
    driver.find_element(By.CSS_SELECTOR, "form.ah-form button.ah-danger").click()
    wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, ".ah-notice")))
    assert "removed" in driver.find_element(By.CSS_SELECTOR, ".ah-notice").text
    assert len(driver.find_elements(By.XPATH, "//tr[td/strong[text()='Passkey']]")) == 1
    step("turnkey: the first passkey removed")


def main():
    firebase()
    openfort()
    turnkey()


run(main)
