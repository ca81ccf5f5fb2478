"""Emails normalised for the limits that count per email (issue 35): one key per mailbox."""

from __future__ import annotations

import pytest

from guards.email_keys import email_key_domains, email_limit_key


@pytest.mark.parametrize(
    ("typed", "key"),
    [
        ("Grace.Hopper@Example.co.uk", "grace.hopper@example.co.uk"),  # dots kept off Gmail
        ("grace.hopper+taxi@example.co.uk", "grace.hopper@example.co.uk"),
        ("  GRACE.hopper+1+2@EXAMPLE.CO.UK. ", "grace.hopper@example.co.uk"),
        ("user+7@gmail.com", "user@gmail.com"),
        ("U.s.E.r+anything@gmail.com", "user@gmail.com"),
        ("u.ser@googlemail.com", "user@gmail.com"),
        ("no-at-sign", "no-at-sign"),
    ],
)
def test_spellings_of_one_mailbox_share_one_key(typed, key):
    assert email_limit_key(typed) == key


def test_different_mailboxes_keep_different_keys():
    assert email_limit_key("grace.hopper@example.co.uk") != email_limit_key(
        "gracehopper@example.co.uk"
    )
    assert email_limit_key("user@gmail.com") != email_limit_key("user2@gmail.com")


def test_a_gmail_key_is_looked_for_under_both_domains():
    assert sorted(email_key_domains("user@gmail.com")) == ["gmail.com", "googlemail.com"]
    assert email_key_domains("grace@example.co.uk") == ["example.co.uk"]
