"""What per-address bounds count: an address, or an IPv6 subscriber's whole /64."""

from __future__ import annotations

from carimg.domain.ratelimit import address_key


def test_an_ipv6_address_counts_by_its_64_network() -> None:
    assert address_key("2001:db8:1:2::1") == address_key("2001:db8:1:2:ffff::9")
    assert address_key("2001:db8:1:2::1") != address_key("2001:db8:1:3::1")


def test_an_ipv4_mapped_address_counts_as_its_ipv4_address() -> None:
    assert address_key("::ffff:192.0.2.7") == address_key("192.0.2.7") == "192.0.2.7"
