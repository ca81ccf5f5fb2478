"""Tables from the trade (issue 33): a driver or an operator sends in a fare table with a
photo; one staff member checks it, another approves it; the next quote from that
authority is priced on it (pricing.submissions, the driver app API, the operator page,
the admin)."""

from __future__ import annotations

import datetime as dt
import io
import json
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import timezone
from PIL import Image
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from core.errors import DomainError
from core.testing.places import LEEDS
from drivers.tests.factories import UserFactory, driver_at, driver_client
from partners.models import OperatorUser
from pricing.models import SubmissionStatus, Tariff, TariffPublication, TariffSubmission
from pricing.publication import tariff_publish
from pricing.submissions.examples import submission_examples
from pricing.submissions.review import submission_approve, submission_check, submission_reject

pytestmark = pytest.mark.django_db

URL = "/api/public/v1/driver/tariff-submissions"
BIRMINGHAM = "Birmingham City Council"  # no table in the registry: the network rate
CAMERA = "PhoneMaker Model X"
FIGURES = {
    "distanceUnit": "m",
    "bands": [
        {
            "name": "Tariff 1",
            "days": ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"],
            "start": "00:00",
            "end": "24:00",
            "flagFallGBP": "2.80",
            "flagFallDistance": "800",
            "incrementPriceGBP": "0.20",
            "incrementDistance": "160",
            "waitingSecondsPerIncrement": "40",
        }
    ],
    "extras": [{"name": "each additional passenger", "amountGBP": "0.50"}],
}
# What the card prints: 1 mile is 800 m of flag fall and 6 increments begun (£4.00);
# 2 miles 16 increments (£6.00). The third is misprinted by 20p.
EXAMPLES = [
    {"miles": "1", "fareGBP": "4.00", "band": "Tariff 1"},
    {"miles": "2", "fareGBP": "6.00", "band": "Tariff 1"},
    {"miles": "3", "fareGBP": "7.80", "band": "Tariff 1"},
]


def jpeg_with_exif(colour: str = "white") -> bytes:
    exif = Image.Exif()
    exif[0x010F] = CAMERA  # Make
    exif[0x0132] = "2026:11:27 10:00:00"  # DateTime
    out = io.BytesIO()
    Image.new("RGB", (60, 40), colour).save(out, "JPEG", exif=exif.tobytes())
    return out.getvalue()


def pdf_bytes() -> bytes:
    return b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"


def body(photo: bytes, name: str = "table.jpg", **changes) -> dict:
    data = {
        "authority": BIRMINGHAM,
        "effectiveFrom": (timezone.localdate() - dt.timedelta(days=10)).isoformat(),
        "figures": json.dumps(FIGURES),
        "examples": json.dumps(EXAMPLES),
        "photo": SimpleUploadedFile(name, photo, content_type="image/jpeg"),
    }
    data.update(changes)
    return data


def staff(name: str, *actions: str):
    user = get_user_model().objects.create_user(name, password="x", is_staff=True)
    for action in actions:
        user.user_permissions.add(Permission.objects.get(codename=f"{action}_tariffsubmission"))
    user.user_permissions.add(Permission.objects.get(codename="view_tariffsubmission"))
    return get_user_model().objects.get(pk=user.pk)  # a fresh permission cache


@pytest.fixture
def driver():
    return driver_at(LEEDS, name="Asha Khan", user=UserFactory())


@pytest.fixture
def sent(driver):
    response = driver_client(driver).post(URL, body(jpeg_with_exif()), format="multipart")
    assert response.status_code == 201, response.content
    return TariffSubmission.objects.get(pk=response.json()["id"])


# --- sending -------------------------------------------------------------------------------


def test_a_driver_sends_a_table_and_its_photo_is_stored_without_exif(driver, sent):
    assert sent.status == SubmissionStatus.PENDING
    assert sent.submitter_name == "Asha Khan"
    assert sent.figures["bands"][0]["flag_fall_gbp"] == "2.80"
    stored = sent.photo.read()
    assert CAMERA.encode() not in stored
    image = Image.open(io.BytesIO(stored))
    assert image.format == "JPEG"
    assert dict(image.getexif()) == {}
    listed = driver_client(driver).get(URL).json()
    assert [s["id"] for s in listed["results"]] == [sent.pk]
    assert listed["results"][0]["status"] == "pending"
    assert BIRMINGHAM in listed["authorities"]
    # The driver's own data download lists it (privacy, issue 39).
    from privacy.services.requests import driver_data

    assert driver_data(driver)["fareTablesSent"][0]["authority"] == BIRMINGHAM


def test_the_same_file_sent_again_is_the_same_submission(driver, sent):
    again = driver_client(driver).post(URL, body(jpeg_with_exif()), format="multipart")
    assert again.status_code == 200
    assert again.json()["id"] == sent.pk
    assert TariffSubmission.objects.count() == 1


def test_a_file_store_that_is_down_is_503_with_retry_after(driver, monkeypatch):
    from botocore.exceptions import EndpointConnectionError
    from django.core.files.storage import FileSystemStorage

    def down(*args, **kwargs):
        raise EndpointConnectionError(endpoint_url="https://s3.example")

    monkeypatch.setattr(FileSystemStorage, "save", down)
    response = driver_client(driver).post(URL, body(jpeg_with_exif()), format="multipart")
    assert response.status_code == 503
    assert response.json()["code"] == "service_unavailable"
    assert int(response["Retry-After"]) > 0
    assert not TariffSubmission.objects.exists()


def test_a_pdf_of_the_councils_notice_is_taken(driver):
    response = driver_client(driver).post(
        URL, body(pdf_bytes(), name="notice.pdf"), format="multipart"
    )
    assert response.status_code == 201, response.content
    assert TariffSubmission.objects.get().photo_type == "application/pdf"


@pytest.mark.parametrize(
    ("content", "name"),
    [
        (b"just some text, named as a photo", "table.jpg"),
        (b"GIF89a" + b"\x00" * 40, "table.gif"),
        (b"%PDF-1.4 cut short", "notice.pdf"),
    ],
)
def test_anything_but_an_image_or_a_pdf_is_refused_by_its_content(driver, content, name):
    response = driver_client(driver).post(URL, body(content, name=name), format="multipart")
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_input"
    assert "photo" in response.json()["errors"]
    assert not TariffSubmission.objects.exists()


def test_a_photo_over_the_cap_is_413(driver, settings):
    settings.TARIFF_SUBMISSION_MAX_BYTES = 500
    response = driver_client(driver).post(URL, body(jpeg_with_exif()), format="multipart")
    assert response.status_code == 413
    assert response.json()["code"] == "payload_too_large"
    assert "photo" in response.json()["errors"]
    assert not TariffSubmission.objects.exists()


def test_a_body_far_over_the_cap_is_refused_before_it_is_read(driver, settings):
    settings.TARIFF_SUBMISSION_MAX_BYTES = 500
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 500
    big = jpeg_with_exif() + b"\x00" * 5000
    response = driver_client(driver).post(URL, body(big), format="multipart")
    assert response.status_code == 413
    assert response.json()["code"] == "payload_too_large"


def test_more_tables_than_the_limit_are_429_with_retry_after(driver, settings):
    settings.TARIFF_SUBMISSIONS_PER_SUBMITTER = 2
    client = driver_client(driver)
    for colour in ("white", "black"):
        sent = client.post(URL, body(jpeg_with_exif(colour)), format="multipart")
        assert sent.status_code == 201
    refused = client.post(URL, body(jpeg_with_exif("red")), format="multipart")
    assert refused.status_code == 429
    assert refused.json()["code"] == "submission_limit"
    assert int(refused["Retry-After"]) > 6 * 24 * 3600
    assert TariffSubmission.objects.count() == 2


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"authority": "Gotham City Council"}, "authority"),
        ({"figures": "not json"}, "figures"),
        (
            {"figures": json.dumps({"bands": [{**FIGURES["bands"][0], "flagFallGBP": "-1"}]})},
            "figures.bands[0].flagFallGBP",
        ),
        (
            {"figures": json.dumps({"bands": [{**FIGURES["bands"][0], "start": "25:00"}]})},
            "figures.bands[0].start",
        ),
        (
            {"figures": json.dumps({"bands": [{**FIGURES["bands"][0], "days": []}]})},
            "figures.bands[0].days",
        ),
        ({"examples": json.dumps([{"miles": "0", "fareGBP": "3"}])}, "examples[0].miles"),
        ({"colour": "blue"}, "colour"),
    ],
)
def test_bad_figures_are_400_naming_the_field(driver, changes, field):
    response = driver_client(driver).post(
        URL, body(jpeg_with_exif(), **changes), format="multipart"
    )
    assert response.status_code == 400, response.content
    assert response.json()["code"] == "invalid_input"
    assert field in response.json()["errors"], response.json()["errors"]
    assert not TariffSubmission.objects.exists()


def test_only_a_driver_may_send_a_table_through_the_app_api(make_account):
    assert APIClient().post(URL, body(jpeg_with_exif()), format="multipart").status_code == 401
    partner = make_account("partner")
    with_key = APIClient()
    with_key.credentials(HTTP_AUTHORIZATION=f"Api-Key {partner.raw_key}")
    assert with_key.post(URL, body(jpeg_with_exif()), format="multipart").status_code == 401
    # A login that is not a driver's (a passenger's, staff's) with a token: 403.
    token, _ = Token.objects.get_or_create(user=UserFactory())
    not_a_driver = APIClient()
    not_a_driver.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    refused = not_a_driver.post(URL, body(jpeg_with_exif()), format="multipart")
    assert refused.status_code == 403
    assert refused.json()["code"] == "permission_denied"
    assert not TariffSubmission.objects.exists()


def test_a_json_body_is_415_not_a_500(driver):
    response = driver_client(driver).post(URL, {"authority": BIRMINGHAM}, format="json")
    assert response.status_code == 415
    assert response.json()["code"] == "unsupported_media_type"


def test_an_operator_sends_a_table_on_its_page(make_account):
    operator = make_account("operator", name="Brum Cars")
    user = UserFactory()
    OperatorUser.objects.create(user=user, account=operator)
    client = Client()
    client.force_login(user)
    form = {
        "authority": BIRMINGHAM,
        "effective_from": "2026-04-01",
        "distance_unit": "yd",
        "band1_name": "Tariff 1",
        "band1_days": ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"],
        "band1_start": "06:00",
        "band1_end": "22:00",
        "band1_flag_fall": "3.00",
        "band1_flag_distance": "1000",
        "band1_increment_price": "0.20",
        "band1_increment_distance": "150",
        "band1_waiting_seconds": "36",
        "example1_miles": "1",
        "example1_fare": "5.20",
        "photo": SimpleUploadedFile("t.jpg", jpeg_with_exif()),
    }
    response = client.post("/operator/tables/", form)
    assert response.status_code == 302, response.content.decode()[:2000]
    submission = TariffSubmission.objects.get()
    assert submission.account == operator
    assert submission.submitter_kind == "operator"
    # Yards as the card prints them, kept in metres at exactly 0.9144 m, unrounded, as the
    # registry does (150 yd is 137.16 m, 1000 yd 914.4 m).
    band = submission.figures["bands"][0]
    assert Decimal(band["flag_fall_distance_m"]) == Decimal("914.4")
    assert Decimal(band["increment_distance_m"]) == Decimal("137.16")
    page = client.get("/operator/tables/")
    assert "Pending" in page.content.decode()
    # A passenger's login (no operator account) is refused.
    passenger = Client()
    passenger.force_login(UserFactory())
    assert passenger.post("/operator/tables/", form).status_code == 403


# --- review --------------------------------------------------------------------------------


def test_the_cards_examples_are_recomputed_with_the_meter(sent):
    checks = submission_examples(sent)
    assert [(c.miles, c.printed, c.meter) for c in checks] == [
        (Decimal("1"), Decimal("4.00"), Decimal("4.00")),
        (Decimal("2"), Decimal("6.00"), Decimal("6.00")),
        (Decimal("3"), Decimal("7.80"), Decimal("8.00")),
    ]
    assert checks[2].difference == Decimal("0.20")


def test_no_table_goes_live_without_a_second_person(driver, sent):
    one, two = staff("one", "check", "approve"), staff("two", "approve")
    with pytest.raises(DomainError) as unchecked:
        submission_approve(submission_id=sent.pk, by=two)
    assert unchecked.value.code == "invalid_transition"
    with pytest.raises(DomainError) as not_staff:
        submission_check(submission_id=sent.pk, by=driver.user)
    assert not_staff.value.code == "permission_denied"
    with pytest.raises(DomainError) as cannot_check:
        submission_check(submission_id=sent.pk, by=two)
    assert cannot_check.value.code == "permission_denied"
    submission_check(submission_id=sent.pk, by=one)
    with pytest.raises(DomainError) as checker:
        submission_approve(submission_id=sent.pk, by=one)
    assert checker.value.code == "permission_denied"
    with pytest.raises(DomainError) as submitter:
        submission_approve(submission_id=sent.pk, by=driver.user)
    assert submitter.value.code == "permission_denied"
    sent.refresh_from_db()
    assert sent.status == SubmissionStatus.CHECKED
    assert sent.tariff is None


def test_a_staff_member_who_sent_a_table_cannot_check_or_approve_it():
    sender = staff("sender", "check", "approve")
    one = staff("one", "check")
    submission = TariffSubmission.objects.create(
        authority=BIRMINGHAM,
        effective_from=dt.date(2026, 1, 1),
        figures={"bands": []},
        photo="x.jpg",
        photo_type="image/jpeg",
        photo_sha256="0" * 64,
        submitter_kind="operator",
        submitter_name="Staff's own cab firm",
        submitted_by=sender,
    )
    with pytest.raises(DomainError):
        submission_check(submission_id=submission.pk, by=sender)
    submission_check(submission_id=submission.pk, by=one)
    with pytest.raises(DomainError):
        submission_approve(submission_id=submission.pk, by=sender)


def quote_from_birmingham() -> dict:
    response = APIClient().post(
        "/api/public/v1/quote",
        data=json.dumps({"pickup": "Birmingham New Street", "dropoff": "Birmingham Airport"}),
        content_type="application/json",
    )
    assert response.status_code == 200, response.content
    return response.json()


def test_approval_creates_a_dated_table_that_prices_the_next_quote(
    tariffs, sent, django_capture_on_commit_callbacks
):
    before = quote_from_birmingham()["tariffSource"]
    assert "-trade-" not in before["reference"]  # the network rate, or an estimate
    one, two = staff("one", "check"), staff("two", "approve")
    submission_check(submission_id=sent.pk, by=one)
    with django_capture_on_commit_callbacks(execute=True):
        submission_approve(submission_id=sent.pk, by=two)
    sent.refresh_from_db()
    tariff = sent.tariff
    assert sent.status == SubmissionStatus.APPROVED
    assert sent.decided_by == two
    assert tariff.kind == "council"
    assert tariff.lifecycle == "current"
    assert tariff.effective_from == sent.effective_from
    assert tariff.areas_gss == ["E08000025"]
    source = tariff.sources[0]["title"]
    assert "Submitted by driver Asha Khan" in source
    assert "checked by staff one" in source
    assert "approved by staff two" in source
    # Published to connected platforms (tariff.updated, contract 5.3).
    published = TariffPublication.objects.get(reference=tariff.reference)
    assert published.data["bands"][0]["flagFallGBP"] == 2.8
    after = quote_from_birmingham()["tariffSource"]
    assert after["reference"] == tariff.reference
    assert after["kind"] == "council"
    assert "sent in by the trade" in after["status"]
    assert after["basis"] == "table"


def test_an_approved_table_outranks_the_authoritys_estimate_and_leaves_it_be(
    tariffs, sent, django_capture_on_commit_callbacks
):
    """Birmingham's published figures give it a calibrated estimate; an approved table from
    the trade prices its quotes instead (basis table), and the estimate is not ended: it
    still prices any hour the card does not cover."""
    from pricing.loaders import tariffs_load

    tariffs_load()
    before = quote_from_birmingham()["tariffSource"]
    assert before["basis"] == "calibrated"
    estimate = Tariff.objects.get(reference=before["reference"])
    submission_check(submission_id=sent.pk, by=staff("one", "check"))
    with django_capture_on_commit_callbacks(execute=True):
        submission_approve(submission_id=sent.pk, by=staff("two", "approve"))
    sent.refresh_from_db()
    after = quote_from_birmingham()["tariffSource"]
    assert (after["basis"], after["reference"]) == ("table", sent.tariff.reference)
    estimate.refresh_from_db()
    assert (estimate.lifecycle, estimate.effective_to) == ("current", None)


def test_an_older_table_of_the_authority_is_dated_to_end_where_the_new_one_starts(
    tariffs, sent, django_capture_on_commit_callbacks
):
    older = Tariff.objects.create(
        reference="birmingham-2019",
        name="Birmingham 2019",
        authority=BIRMINGHAM,
        effective_from=dt.date(2019, 1, 1),
    )
    with django_capture_on_commit_callbacks(execute=True):
        tariff_publish(reference=older.reference)  # platforms hold it
    submission_check(submission_id=sent.pk, by=staff("one", "check"))
    with django_capture_on_commit_callbacks(execute=True):
        submission_approve(submission_id=sent.pk, by=staff("two", "approve"))
    older.refresh_from_db()
    assert older.effective_to == sent.effective_from
    # Its replacement already in force, platforms are told it is withdrawn.
    latest = TariffPublication.objects.filter(reference="birmingham-2019").order_by("-version")
    assert latest.first().withdrawn


def test_a_rejection_tells_the_driver_why(
    driver, sent, mailoutbox, django_capture_on_commit_callbacks
):
    driver.user.email = "asha@example.co.uk"
    driver.user.save(update_fields=["email"])
    sent.refresh_from_db()
    with django_capture_on_commit_callbacks(execute=True):
        submission_reject(
            submission_id=sent.pk, by=staff("one", "reject"), reason="The photo is too blurred."
        )
    assert mailoutbox[0].to == ["asha@example.co.uk"]
    assert "The photo is too blurred." in mailoutbox[0].body
    listed = driver_client(driver).get(URL).json()["results"][0]
    assert listed["status"] == "rejected"
    assert listed["rejectionReason"] == "The photo is too blurred."
    # A rejected table may be sent again, corrected (the same photo included).
    again = driver_client(driver).post(URL, body(jpeg_with_exif()), format="multipart")
    assert again.status_code == 201


# --- the back office -------------------------------------------------------------------------


def admin_client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_view_only_staff_see_no_action_and_the_photo_beside_the_figures(sent):
    viewer = staff("viewer")
    page = admin_client(viewer).get(f"/admin/pricing/tariffsubmission/{sent.pk}/change/")
    assert page.status_code == 200
    html = page.content.decode()
    assert f"/admin/pricing/tariffsubmission/{sent.pk}/photo/" in html
    assert "7.80" in html
    assert "8.00" in html
    listing = admin_client(viewer).get("/admin/pricing/tariffsubmission/").content.decode()
    for action in ("check_submissions", "approve_submissions", "reject_submissions"):
        assert f'value="{action}"' not in listing
    checker = admin_client(staff("checker", "check")).get("/admin/pricing/tariffsubmission/")
    assert 'value="check_submissions"' in checker.content.decode()
    assert 'value="approve_submissions"' not in checker.content.decode()
    photo = admin_client(viewer).get(f"/admin/pricing/tariffsubmission/{sent.pk}/photo/")
    assert photo.status_code == 200
    assert photo["Content-Type"] == "image/jpeg"
    assert Image.open(io.BytesIO(b"".join(photo.streaming_content))).format == "JPEG"
    outsider = admin_client(UserFactory())
    assert outsider.get(f"/admin/pricing/tariffsubmission/{sent.pk}/photo/").status_code == 302


def test_the_admin_actions_check_then_approve(sent, tariffs, django_capture_on_commit_callbacks):
    changelist = "/admin/pricing/tariffsubmission/"
    one = admin_client(staff("one", "check"))
    one.post(changelist, {"action": "check_submissions", "_selected_action": [sent.pk]})
    sent.refresh_from_db()
    assert sent.status == SubmissionStatus.CHECKED
    # The checker may not approve: the action is not theirs, and nothing changes.
    one.post(changelist, {"action": "approve_submissions", "_selected_action": [sent.pk]})
    sent.refresh_from_db()
    assert sent.status == SubmissionStatus.CHECKED
    two = admin_client(staff("two", "approve"))
    with django_capture_on_commit_callbacks(execute=True):
        two.post(changelist, {"action": "approve_submissions", "_selected_action": [sent.pk]})
    sent.refresh_from_db()
    assert sent.status == SubmissionStatus.APPROVED
    assert sent.tariff is not None


def test_the_reject_action_asks_for_a_reason(sent):
    changelist = "/admin/pricing/tariffsubmission/"
    client = admin_client(staff("one", "reject"))
    asked = client.post(changelist, {"action": "reject_submissions", "_selected_action": [sent.pk]})
    assert asked.status_code == 200
    assert 'name="reason"' in asked.content.decode()
    client.post(
        changelist,
        {
            "action": "reject_submissions",
            "_selected_action": [sent.pk],
            "apply": "1",
            "reason": "Tariff 2 is missing.",
        },
    )
    sent.refresh_from_db()
    assert sent.status == SubmissionStatus.REJECTED
    assert sent.rejection_reason == "Tariff 2 is missing."


def test_production_storage_is_s3_compatible_when_a_bucket_is_set():
    """FILE_STORAGE_S3_BUCKET switches Django's default storage to django-storages' S3
    backend, private, on the given endpoint (read in a fresh process: settings are read
    once)."""
    import os
    import subprocess
    import sys

    script = (
        "import django; django.setup();"
        'from django.core.files.storage import storages; s = storages["default"];'
        "print(type(s).__name__, s.bucket_name, s.endpoint_url, s.default_acl, s.file_overwrite)"
    )
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "FILE_STORAGE_S3_BUCKET": "fare-tables",
        "FILE_STORAGE_S3_ENDPOINT_URL": "https://minio.example:9000",
    }
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == [
        "S3Storage",
        "fare-tables",
        "https://minio.example:9000",
        "private",
        "False",
    ]


def test_the_photo_with_its_store_down_is_503_with_retry_after(sent, monkeypatch):
    from django.core.files.storage import FileSystemStorage

    def down(*args, **kwargs):
        raise OSError("the disk is gone")

    monkeypatch.setattr(FileSystemStorage, "open", down)
    photo = admin_client(staff("viewer")).get(f"/admin/pricing/tariffsubmission/{sent.pk}/photo/")
    assert photo.status_code == 503
    assert int(photo["Retry-After"]) > 0


def test_a_rejected_table_and_its_photo_go_after_their_period(driver, sent, settings):
    from privacy.services.retention import retention_apply

    kept = driver_client(driver).post(URL, body(jpeg_with_exif("black")), format="multipart")
    assert kept.status_code == 201
    submission_reject(submission_id=sent.pk, by=staff("one", "reject"), reason="Blurred.")
    TariffSubmission.objects.filter(pk=sent.pk).update(
        decided_at=timezone.now() - dt.timedelta(days=settings.PRIVACY_REJECTED_TABLE_DAYS + 1)
    )
    TariffSubmission.objects.exclude(pk=sent.pk).update(
        created_at=timezone.now() - dt.timedelta(days=400)
    )
    storage, name = sent.photo.storage, sent.photo.name
    assert storage.exists(name)
    report = retention_apply()
    assert report.counts["rejected_tables"] == 1
    assert not TariffSubmission.objects.filter(pk=sent.pk).exists()
    assert not storage.exists(name)
    # One awaiting review is kept, however old.
    assert TariffSubmission.objects.filter(pk=kept.json()["id"]).exists()
