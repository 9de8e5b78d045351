"""AuthHub-held factors in a headless Chromium (see browser_common.py), through the Hummingbird example
app with a provider that has no second factors of its own (`oidc`) and providers.json's `heldFactors`
on for it. Run by Tests/AuthHubHummingbirdTests/BrowserSignInTests.swift:

    python browser_held_factors.py BASE_URL EMAIL PASSWORD SCREENSHOT_DIR

A passkey is added on the account page with Chromium's virtual authenticator (DevTools'
WebAuthn.addVirtualAuthenticator, through Selenium) and then answers the second step of the next
sign-in; recovery codes are created, one is used, and the same one is refused the next time; a second
browser (a profile of its own) signs in with another code and is signed out from the first one's
account page — after a step-up, the sign-out being a form's POST on an old sign-in — after which it
gets 401.
"""
import os
import sys
import time


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser_common import (EC, By, add_virtual_authenticator, base, check_page, driver, email, forget_provider_session, login, new_driver, password,  # noqa: E402
                            provider_path, remove_link, run, step, wait)
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402


def sign_in_to_second_step(provider_base):
    """Signs out, forgets the provider's session, signs in with the password: the app asks for AuthHub's factor."""
    driver.get(base + "/profile")
    driver.find_element(By.ID, "signout").click()
    wait.until(EC.url_to_be(base + "/"))
    forget_provider_session(provider_base)
    driver.find_element(By.LINK_TEXT, "Sign in with oidc").click()
    login(password)
    wait.until(EC.url_to_be(base + "/auth/second-factor"))


def use_recovery_code(code, browser=driver):
    details = browser.find_element(By.CSS_SELECTOR, "details.ah-alt")
    if details.get_attribute("open") is None:
        details.find_element(By.TAG_NAME, "summary").click()
    field = browser.find_element(By.ID, "ah-recovery")
    field.clear()
    field.send_keys(code)
    field.submit()


def step_up_to_confirmation(code, action, asked):
    """An old sign-in clicked its way to a sensitive action: the provider's sign-in again, AuthHub's
    second step with a recovery code, then the confirmation page of `action`, confirmed."""
    wait.until(EC.presence_of_element_located((By.NAME, "email")))
    step(asked)
    login(password)
    wait.until(EC.url_to_be(base + "/auth/second-factor"))
    use_recovery_code(code)
    wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "form.ah-form button.ah-danger")))
    assert "/account/confirm?action=" + action in driver.current_url, driver.current_url
    check_page("confirm " + action)
    driver.find_element(By.CSS_SELECTOR, "form.ah-form button.ah-danger").click()
    wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, ".ah-notice")))


def main():
    add_virtual_authenticator()

    driver.get(base + "/")
    wait.until(EC.presence_of_element_located((By.LINK_TEXT, "Sign in with oidc")))
    driver.find_element(By.LINK_TEXT, "Sign in with oidc").click()
    wait.until(EC.presence_of_element_located((By.NAME, "email")))
    provider_base = provider_path()
    login(password)
    wait.until(EC.url_to_be(base + "/profile"))
    step("signed in with the provider alone (no factor yet)")

    driver.find_element(By.ID, "account").click()
    wait.until(EC.presence_of_element_located((By.LINK_TEXT, "Add a passkey")))
    driver.find_element(By.LINK_TEXT, "Add a passkey").click()
    wait.until(EC.visibility_of_element_located((By.ID, "ah-passkey")))
    check_page("add a passkey")
    driver.refresh()  # the check's fetch started a new enrollment: use the one the server keeps
    wait.until(EC.visibility_of_element_located((By.ID, "ah-passkey")))
    step("add a passkey")
    driver.find_element(By.ID, "ah-passkey").click()
    wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, ".ah-notice")))
    assert "passkey was added" in driver.find_element(By.CSS_SELECTOR, ".ah-notice").text, driver.page_source[:400]
    assert "kept by this app" in driver.page_source
    check_page("account with a held passkey")
    step("passkey added (kept by this app)")

    driver.find_element(By.LINK_TEXT, "Create recovery codes").click()
    wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, ".ah-codes li")))
    driver.refresh()
    wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, ".ah-codes li")))
    codes = [element.text for element in driver.find_elements(By.CSS_SELECTOR, ".ah-codes li")]
    assert len(codes) == 10, codes
    step("recovery codes shown once")
    driver.find_element(By.CSS_SELECTOR, "form.ah-form button").click()
    wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, ".ah-notice")))

    sign_in_to_second_step(provider_base)
    check_page("second step")
    step("the app asks for AuthHub's second factor")
    wait.until(EC.visibility_of_element_located((By.ID, "ah-passkey"))).click()
    wait.until(EC.url_to_be(base + "/profile"))
    step("signed in with the passkey")

    sign_in_to_second_step(provider_base)
    use_recovery_code(codes[0])
    wait.until(EC.url_to_be(base + "/profile"))
    step("signed in with a recovery code")

    sign_in_to_second_step(provider_base)
    use_recovery_code(codes[0])
    wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, ".ah-error[role=alert]")))
    assert "not right" in driver.find_element(By.CSS_SELECTOR, ".ah-error[role=alert]").text
    check_page("second step with an error")
    step("the same recovery code is refused")
    use_recovery_code(codes[1])
    wait.until(EC.url_to_be(base + "/profile"))
    step("another recovery code works")

    # A second browser (a profile of its own) signs in with a third code; the first signs it out.
    other = new_driver()
    try:
        other_wait = WebDriverWait(other, 20)
        other.get(base + "/")
        other.find_element(By.LINK_TEXT, "Sign in with oidc").click()
        other_wait.until(EC.presence_of_element_located((By.NAME, "email")))
        other.find_element(By.NAME, "email").send_keys(email)
        other.find_element(By.NAME, "password").send_keys(password)
        other.find_element(By.CSS_SELECTOR, "form button, form input[type=submit]").click()
        other_wait.until(EC.url_to_be(base + "/auth/second-factor"))
        use_recovery_code(codes[2], browser=other)
        other_wait.until(EC.url_to_be(base + "/profile"))
        assert other.execute_script("return fetch('/profile.json', {credentials: 'same-origin'}).then(r => r.status)") == 200
        driver.get(base + "/account")
        wait.until(EC.presence_of_element_located((By.ID, "ah-sessions")))
        check_page("account with two sessions")
        step("two browsers signed in")
        # Signing another browser out wants a recent sign-in (the test app's step-up window is 4 s): the
        # list's own button (a form's POST) goes through the provider's sign-in — not blocked by the page's
        # `form-action 'self'` — and AuthHub's second step, then to the confirmation of that sign-out.
        time.sleep(5)
        driver.find_element(By.CSS_SELECTOR, "section[aria-labelledby=ah-sessions] form button.ah-danger").click()
        step_up_to_confirmation(codes[3], "sign-out-session", "signing the other browser out asks for a recent sign-in first")
        step("the other browser signed out from this one")
        status = other.execute_script("return fetch('/profile.json', {credentials: 'same-origin'}).then(r => r.status)")
        assert status == 401, status
        step("the other browser gets 401")
    finally:
        other.quit()

    # A sensitive action on an old sign-in (the test app's step-up window is 4 s): removing the passkey
    # goes through the provider's login again and AuthHub's second step, then back to the confirmation.
    time.sleep(5)
    driver.get(base + "/account")
    remove_link("Passkey").click()
    step_up_to_confirmation(codes[4], "remove-method", "an old sign-in is sent to sign in again first")
    assert "removed" in driver.find_element(By.CSS_SELECTOR, ".ah-notice").text
    step("the passkey is removed")


run(main)
