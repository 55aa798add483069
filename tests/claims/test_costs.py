"""The scheduling hint names real claims (a renamed claim would silently lose its place)."""

from verifydp.claims import catalogue
from verifydp.claims.costs import SECONDS, expected_seconds


def test_every_hinted_claim_exists() -> None:
    assert set(SECONDS) <= set(catalogue())


def test_unlisted_claims_count_as_short() -> None:
    assert expected_seconds("no/such:claim") == 0.0
    slowest = max(SECONDS, key=SECONDS.__getitem__)
    assert expected_seconds(slowest) == max(SECONDS.values()) > 0
