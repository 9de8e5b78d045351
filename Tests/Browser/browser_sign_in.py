"""Drives a headless Chromium (Debian's chromium and chromium-driver, Selenium from PyPI) through the
example web app and the emulator's Universal Login page, as a user would. Run by
Tests/AuthHubHummingbirdTests/BrowserSignInTests.swift, which starts both servers:

    python browser_sign_in.py BASE_URL EMAIL PASSWORD SCREENSHOT_DIR

Prints one line per step; exits 0 when every step held, 1 otherwise (with a screenshot of the failing
page, and of every earlier step, in SCREENSHOT_DIR).
"""
import os
import sys

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

base, email, password, shots = sys.argv[1:5]
os.makedirs(shots, exist_ok=True)
options = Options()
for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--no-first-run"):
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


def login(pw):
    wait.until(EC.presence_of_element_located((By.NAME, "email")))
    driver.find_element(By.NAME, "email").clear()
    driver.find_element(By.NAME, "email").send_keys(email)
    driver.find_element(By.NAME, "password").send_keys(pw)
    driver.find_element(By.CSS_SELECTOR, "form button, form input[type=submit]").click()


try:
    driver.get(base + "/")
    wait.until(EC.presence_of_element_located((By.LINK_TEXT, "Sign in with auth0")))
    step("home, signed out")
    driver.find_element(By.LINK_TEXT, "Sign in with auth0").click()
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
    sys.exit(1)
finally:
    driver.quit()
