"""What the browser scripts share (Tests/Browser/*.py): a headless Chromium (Debian's chromium and
chromium-driver) driven by Selenium (PyPI), screenshots of every step, the emulator's login form, TOTP
codes from oathtool (Debian's oathtool), and the page checks: tidy (Debian's tidy, HTML) and axe-core
(PyPI's axe-selenium-python, its WCAG 2 A and AA rules).

Every script takes: BASE_URL EMAIL PASSWORD SCREENSHOT_DIR.
"""
import json
import os
import subprocess
import sys
import time
from urllib.parse import urlparse

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

base, email, password, shots = sys.argv[1:5]
os.makedirs(shots, exist_ok=True)
options = Options()
# `localhost` is 127.0.0.1 (where the apps listen; passkeys need the name, browsers refuse them on an
# IP address), and no other name resolves: the browser reaches nothing off this machine.
for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--no-first-run", "--window-size=1280,1100",
             "--host-resolver-rules=MAP localhost 127.0.0.1, MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"):
    options.add_argument(flag)
options.binary_location = os.environ.get("AUTHHUB_CHROMIUM", "/usr/bin/chromium")


def new_driver():
    """Another Chromium: a browser profile of its own (its own cookies), as a second device is."""
    return webdriver.Chrome(service=Service(os.environ.get("AUTHHUB_CHROMEDRIVER", "/usr/bin/chromedriver")), options=options)


driver = new_driver()
wait = WebDriverWait(driver, 20)
count = 0


def add_virtual_authenticator():
    """Chromium's virtual authenticator (DevTools' WebAuthn.addVirtualAuthenticator): a platform
    authenticator with resident keys that verifies the user."""
    from selenium.webdriver.common.virtual_authenticator import Protocol, Transport, VirtualAuthenticatorOptions
    options = VirtualAuthenticatorOptions()
    options.protocol = Protocol.CTAP2
    options.transport = Transport.INTERNAL
    options.has_resident_key = True
    options.has_user_verification = True
    options.is_user_verified = True
    driver.add_virtual_authenticator(options)


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
    axe-selenium-python, WCAG 2 A and AA rules) without errors; its screenshot is kept as page-NAME.png."""
    global AXE
    driver.save_screenshot(os.path.join(shots, "page-" + "".join(c if c.isalnum() else "-" for c in name) + ".png"))
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




def provider_path():
    """The provider's base (`http://127.0.0.1:PORT/auth0`) from the login page the browser is on, once
    its form is there: where its cookies live."""
    wait.until(EC.presence_of_element_located((By.NAME, "email")))
    page = urlparse(driver.current_url)
    return f"{page.scheme}://{page.netloc}/{page.path.strip('/').split('/')[0]}"


def remove_link(kind):
    """The "Remove" link of the account page's method row whose kind is `kind` (as the page words it)."""
    return driver.find_element(By.XPATH, f"//tr[td/strong[text()='{kind}']]//a[contains(@class, 'ah-link-danger')]")


def forget_provider_session(provider_path):
    """Drops the provider's own browser session (its cookies live under its path), so that the next
    sign-in asks for the password again."""
    driver.get(provider_path + "/")
    driver.delete_all_cookies()
    driver.get(base + "/")


def run(steps):
    """Runs `steps()`; exits 0 when every step held, 1 with a screenshot, the page's text and the
    console's last lines otherwise."""
    try:
        steps()
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
