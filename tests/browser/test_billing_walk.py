"""Drivers pay their subscription (issue 36), walked on a phone against localstripe.

A demo driver adds a card on the subscription page (localstripe's Stripe.js stand-in
takes the number; it never reaches our server), the weekly run charges the invoice once
even when run twice, and the page shows the week paid with a receipt. A second driver's
card declines every charge: the week shows failed, the driver is emailed, and the week
is on the staff queue of failed payments.
"""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from billing.models import Invoice, InvoiceStatus
from billing.services.invoicing import invoices_generate_week
from billing.tests.localstripe import (
    CARD_DECLINES_CHARGES,
    CARD_OK,
    PUBLISHABLE_KEY,
    SECRET_KEY,
    WEBHOOK_SECRET,
    LocalStripe,
)
from billing.tests.records import after, at_london, payment
from drivers.tests.factories import BilledDriverFactory, UserFactory
from tests.browser.conftest import SCREENSHOTS
from tests.browser.test_walks import DESKTOP, PASSWORD, PHONE, log_in

pytestmark = pytest.mark.django_db(transaction=True)

WEEK = date(2026, 6, 1)


@pytest.fixture
def localstripe(settings):
    server = LocalStripe().start()
    settings.BILLING_COLLECTION_BACKEND = "billing.collection.StripeCollection"
    settings.STRIPE_SECRET_KEY = SECRET_KEY
    settings.STRIPE_PUBLISHABLE_KEY = PUBLISHABLE_KEY
    settings.STRIPE_WEBHOOK_SECRET = WEBHOOK_SECRET
    settings.STRIPE_API_BASE = server.base
    yield server
    server.stop()


def _fits(browser, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(SCREENSHOTS / f"phone-billing-{name}.png"))
    scroll, client = browser.execute_script(
        "return [document.documentElement.scrollWidth, document.documentElement.clientWidth];"
    )
    assert scroll <= client, f"{name} scrolls sideways: {scroll} px in {client} px"


def _add_card(browser, live_server, number: str) -> None:
    browser.get(live_server.url + "/driver/billing/")
    browser.find_element(By.ID, "add-card").click()
    WebDriverWait(browser, 10).until(
        lambda tab: tab.find_elements(By.CSS_SELECTOR, "#card-element input")
    )
    _fits(browser, "add-card")
    fields = {"number": number, "exp_month": "12", "exp_year": "34", "cvc": "123"}
    for placeholder, value in {**fields, "postal_code": "LS1 4AP"}.items():
        browser.find_element(
            By.CSS_SELECTOR, f"#card-element input[placeholder={placeholder}]"
        ).send_keys(value)
    browser.find_element(By.ID, "card-save").click()
    WebDriverWait(browser, 15).until(lambda tab: tab.find_elements(By.ID, "payment-methods"))


def _driver(username: str, name: str):
    user = UserFactory(username=username)
    driver = BilledDriverFactory(user=user, name=name, email=f"{username}@example.com")
    payment(driver=driver, amount="640.00", at=at_london(WEEK + timedelta(days=1)))
    return driver


def test_a_driver_adds_a_card_and_the_weekly_run_charges_it_once(browser, live_server, localstripe):
    asha = _driver("asha", "Asha Khan")
    browser.set_window_size(*PHONE)
    try:
        log_in(browser, live_server, "/driver/login/", "asha", PASSWORD)
        _add_card(browser, live_server, CARD_OK)
        assert "Visa ending 4242" in browser.find_element(By.ID, "payment-methods").text
        _fits(browser, "subscription-card")

        # The weekly run, twice (a duplicated beat): one invoice, one charge.
        invoices_generate_week(week_start=WEEK, now=after(WEEK))
        invoices_generate_week(week_start=WEEK, now=after(WEEK))

        invoice = Invoice.objects.get(driver=asha, week_start=WEEK)
        assert invoice.status == InvoiceStatus.PAID
        customer = asha.payment_customer.customer_id
        charges = localstripe.get("/v1/charges", customer=customer)["data"]
        assert [(c["amount"], c["status"]) for c in charges] == [(2000, "succeeded")]

        browser.get(live_server.url + "/driver/billing/")
        row = browser.find_element(By.CSS_SELECTOR, f"tr[data-week='{WEEK:%Y-%m-%d}']")
        assert "Paid" in row.text
        _fits(browser, "subscription-paid")
        row.find_element(By.LINK_TEXT, invoice.display_number).click()
        browser.find_element(By.ID, "receipt-link").click()
        assert "Receipt" in browser.find_element(By.ID, "doc-title").text
        assert invoice.payment_reference in browser.page_source
        _fits(browser, "receipt")
    finally:
        browser.set_window_size(*DESKTOP)


def test_a_declining_card_fails_the_week_tells_the_driver_and_queues_it(
    browser, live_server, localstripe
):
    ben = _driver("ben", "Ben Ode")
    get_user_model().objects.create_superuser("staff", "staff@example.com", PASSWORD)
    browser.set_window_size(*PHONE)
    try:
        log_in(browser, live_server, "/driver/login/", "ben", PASSWORD)
        _add_card(browser, live_server, CARD_DECLINES_CHARGES)

        invoices_generate_week(week_start=WEEK, now=after(WEEK))

        invoice = Invoice.objects.get(driver=ben, week_start=WEEK)
        assert invoice.status == InvoiceStatus.FAILED
        assert [m.to for m in mail.outbox] == [["ben@example.com"]]
        browser.get(live_server.url + "/driver/billing/")
        row = browser.find_element(By.CSS_SELECTOR, f"tr[data-week='{WEEK:%Y-%m-%d}']")
        assert "Failed" in row.text
        assert invoice.display_number in browser.find_element(By.ID, "outstanding").text
        assert "try again" in browser.find_element(By.ID, "unpaid-policy").text
        _fits(browser, "subscription-failed")
    finally:
        browser.set_window_size(*DESKTOP)

    browser.delete_all_cookies()
    browser.get(live_server.url + "/admin/login/")
    browser.find_element(By.ID, "id_username").send_keys("staff")
    browser.find_element(By.ID, "id_password").send_keys(PASSWORD)
    browser.find_element(By.CSS_SELECTOR, "#login-form [type=submit]").click()
    WebDriverWait(browser, 10).until(lambda tab: "/login/" not in tab.current_url)
    browser.get(live_server.url + "/admin/billing/failedpayment/")
    assert invoice.display_number in browser.find_element(By.ID, "result_list").text


def test_with_vat_added_the_week_is_charged_gross_and_the_pages_show_it_on_a_phone(
    browser, live_server, localstripe, settings
):
    # The fee set exclusive of VAT (billing.fees.VatRule): £20.00 net + 20% VAT = £24.00.
    settings.VAT_NUMBER = "GB123456789"
    settings.BILLING_SUPPLIER_NAME = "Open Taxi Network Ltd"
    settings.BILLING_SUPPLIER_ADDRESS = "1 Park Row, Leeds LS1 5AB"
    settings.SUBSCRIPTION_FEE_INCLUDES_VAT = False
    asha = _driver("asha", "Asha Khan")
    browser.set_window_size(*PHONE)
    try:
        log_in(browser, live_server, "/driver/login/", "asha", PASSWORD)
        _add_card(browser, live_server, CARD_OK)
        invoices_generate_week(week_start=WEEK, now=after(WEEK))

        invoice = Invoice.objects.get(driver=asha, week_start=WEEK)
        assert invoice.status == InvoiceStatus.PAID
        customer = asha.payment_customer.customer_id
        charges = localstripe.get("/v1/charges", customer=customer)["data"]
        assert [(c["amount"], c["status"]) for c in charges] == [(2400, "succeeded")]

        browser.get(live_server.url + "/driver/billing/")
        row = browser.find_element(By.CSS_SELECTOR, f"tr[data-week='{WEEK:%Y-%m-%d}']")
        assert "£24.00 (with £4.00 VAT)" in row.text
        _fits(browser, "vat-added-subscription")
        row.find_element(By.LINK_TEXT, invoice.display_number).click()
        assert browser.find_element(By.ID, "net").text == "£20.00"
        assert browser.find_element(By.ID, "vat").text == "£4.00"
        assert browser.find_element(By.ID, "total").text == "£24.00"
        _fits(browser, "vat-added-invoice")
        browser.find_element(By.ID, "receipt-link").click()
        assert browser.find_element(By.ID, "gross").text == "£24.00"
        assert browser.find_element(By.ID, "vat").text == "£4.00"
        _fits(browser, "vat-added-receipt")
    finally:
        browser.set_window_size(*DESKTOP)
