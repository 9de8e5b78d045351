"""Drives a headless Chromium (Debian's chromium and chromium-driver, Selenium from PyPI) through the
example web app and the emulator's Universal Login page, as a user would. Run by
Tests/AuthHubHummingbirdTests/BrowserSignInTests.swift, which starts both servers:

    python browser_sign_in.py BASE_URL EMAIL PASSWORD SCREENSHOT_DIR

Prints one line per step; exits 0 when every step held, 1 otherwise (with a screenshot of the failing
page, and of every earlier step, in SCREENSHOT_DIR).
"""
import json
import os
import re
import subprocess
import sys
import time
from urllib.parse import parse_qs, urlparse

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

base, email, password, shots = sys.argv[1:5]
os.makedirs(shots, exist_ok=True)
options = Options()
for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--no-first-run", "--window-size=1280,1100"):
    options.add_argument(flag)
options.binary_location = os.environ.get("AUTHHUB_CHROMIUM", "/usr/bin/chromium")
driver = webdriver.Chrome(service=Service(os.environ.get("AUTHHUB_CHROMEDRIVER", "/usr/bin/chromedriver")), options=options)
wait = WebDriverWait(driver, 20)
count = 0


def step(name):
    global count
    count += 1
    driver.save_screenshot(os.path.join(shots, f"{count:02d}-{name}.png"))
    print(f"browser: {name}", flush=True)


def login(pw, otp_secret=None):
    wait.until(EC.presence_of_element_located((By.NAME, "email")))
    driver.find_element(By.NAME, "email").clear()
    driver.find_element(By.NAME, "email").send_keys(email)
    driver.find_element(By.NAME, "password").send_keys(pw)
    if otp_secret and driver.find_elements(By.NAME, "otp"):
        driver.find_element(By.NAME, "otp").send_keys(totp(otp_secret, ahead=1))
    driver.find_element(By.CSS_SELECTOR, "form button, form input[type=submit]").click()


def totp(secret, ahead=0):
    """The code of the TOTP secret (base32) from oathtool (Debian's oathtool), `ahead` time steps on:
    the enrollment used the current step, and a code is accepted once."""
    moment = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(time.time() + 30 * ahead))
    return subprocess.run(["oathtool", "--totp", "-b", "-N", moment, secret], check=True, capture_output=True, text=True).stdout.strip()


AXE = None


def check_page(name):
    """The page as served passes tidy (Debian's html-tidy, HTML5, errors only) and axe-core (PyPI's
    axe-selenium-python, WCAG 2 A and AA rules) without errors."""
    global AXE
    html = driver.execute_script("return fetch(location.href, {credentials: 'same-origin'}).then(r => r.text())")
    tidy = subprocess.run(["tidy", "-errors", "-quiet", "--show-warnings", "no"], input=html, capture_output=True, text=True)
    assert tidy.returncode < 2, f"{name}: tidy found errors: {tidy.stderr}"
    if AXE is None:
        import axe_selenium_python
        folder = os.path.dirname(axe_selenium_python.__file__)
        with open(os.path.join(folder, "node_modules", "axe-core", "axe.min.js"), encoding="utf-8") as file:
            AXE = file.read()
    driver.execute_script(AXE)
    driver.set_script_timeout(30)
    result = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "try { axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa']}})"
        ".then(r => done(r.violations), e => done('axe failed: ' + e)); } catch (e) { done('axe failed: ' + e); }")
    assert not isinstance(result, str), f"{name}: {result}"
    assert result == [], f"{name}: axe-core violations: " + json.dumps([(v['id'], v['help'], [n['target'] for n in v['nodes']]) for v in result])


def account_pages():
    """The account pages: the overview, an authenticator app added from the QR code read off the page
    (zbarimg, Debian's zbar-tools) with a code from oathtool, recovery codes shown once."""
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
    return secret


try:
    driver.get(base + "/")
    wait.until(EC.presence_of_element_located((By.LINK_TEXT, "Sign in with auth0")))
    step("home, signed out")
    driver.find_element(By.LINK_TEXT, "Sign in with auth0").click()
    wait.until(EC.presence_of_element_located((By.NAME, "email")))
    provider = urlparse(driver.current_url)
    provider_path = f"{provider.scheme}://{provider.netloc}/{provider.path.strip('/').split('/')[0]}"
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
    secret = account_pages()
    # Signed out and in again: the provider now asks for the app's code.
    driver.get(base + "/profile")
    driver.find_element(By.ID, "signout").click()
    wait.until(EC.url_to_be(base + "/"))
    check_page("home, signed out")
    # Forget the provider's own browser session too, so that it asks for the password again.
    driver.get(provider_path + "/")  # the tenant's cookies live under its path
    driver.delete_all_cookies()
    driver.get(base + "/")
    driver.find_element(By.LINK_TEXT, "Sign in with auth0").click()
    login(password)
    wait.until(EC.presence_of_element_located((By.NAME, "otp")))
    step("the provider asks for the second factor")
    login(password, otp_secret=secret)
    wait.until(EC.url_to_be(base + "/profile"))
    step("signed in with the second factor")
    driver.find_element(By.ID, "signout").click()
    wait.until(EC.url_to_be(base + "/"))
    assert "You are signed out." in driver.page_source
    step("signed out")
    status = driver.execute_script("return fetch('/profile.json', {credentials: 'same-origin'}).then(r => r.status)")
    assert status == 401, status
    step("the JSON route refuses the signed-out browser")
    print("browser: all steps passed", flush=True)
    sys.exit(0)
except Exception as error:  # a failed step: keep the page for the CI artifact
    step("FAILED")
    print(f"browser: FAILED after {count - 1} steps: {type(error).__name__}: {error}", flush=True)
    try:
        text = " ".join(driver.find_element(By.TAG_NAME, "body").text.split())
        print(f"browser: the page at {driver.current_url} says: {text[:600]}", flush=True)
        for entry in driver.get_log("browser")[-5:]:
            print(f"browser: console: {entry.get('level')}: {entry.get('message', '')[:300]}", flush=True)
    except Exception:  # the page itself may be gone
        pass
    sys.exit(1)
finally:
    driver.quit()
