//! EndpointSlice validation as the API server does it for the fields gamma-rs reads
//! (`ValidateEndpointSliceCreate`, k8s.io/kubernetes `pkg/apis/discovery/validation`; the IP
//! rules of `ValidateEndpointIP` in `pkg/apis/core/validation` and the strict IP parsing of
//! k8s.io/apimachinery `pkg/util/validation/ip.go`):
//!
//! - `addressType` required, one of `IPv4`, `IPv6`, `FQDN`;
//! - at most 1000 endpoints; each with 1 to 100 addresses, each valid for the address type:
//!   an IPv4 or IPv6 address in canonical-enough text (no leading zeros, no IPv4-mapped IPv6),
//!   not unspecified, loopback, link-local or link-local multicast; an FQDN of at least two
//!   DNS-1123 labels (one trailing dot allowed);
//! - at most 20000 ports, names DNS-1123 labels when set and unique (an unnamed port is the
//!   name `""`, so two unnamed ports repeat it), protocol TCP, UDP or SCTP (default TCP),
//!   `appProtocol` a qualified name.
//!
//! Port numbers are not checked: the API server accepts any int32 there (observed on
//! kube-apiserver v1.37: 0, -1 and 70000 are accepted), and so does gamma-rs.

use std::collections::HashSet;
use std::net::{Ipv4Addr, Ipv6Addr};

use super::meta::{self, NameRule};
use super::patterns as p;
use super::{ErrorKind, Errors, FieldPath};
use crate::k8s::EndpointSlice;

const ADDRESS_TYPES: &[&str] = &["IPv4", "IPv6", "FQDN"];
const PROTOCOLS: &[&str] = &["TCP", "UDP", "SCTP"];
const MAX_ENDPOINTS: usize = 1000;
const MAX_ADDRESSES: usize = 100;
const MAX_PORTS: usize = 20000;

pub(crate) fn endpoint_slice(slice: &EndpointSlice, path: &FieldPath, errors: &mut Errors) {
    meta::object_meta(&slice.metadata, path, true, NameRule::Subdomain, errors);
    let tpath = path.field("addressType");
    let address_type = slice.address_type.as_str();
    if address_type.is_empty() {
        errors.push(tpath, ErrorKind::Required);
    } else if !ADDRESS_TYPES.contains(&address_type) {
        errors.unsupported(&tpath, address_type, ADDRESS_TYPES);
    }
    let epath = path.field("endpoints");
    if slice.endpoints.len() > MAX_ENDPOINTS {
        // The API server stops there for the endpoints.
        errors.push(epath, ErrorKind::TooMany { max: MAX_ENDPOINTS });
    } else {
        for (i, e) in slice.endpoints.iter().enumerate() {
            let apath = epath.index(i).field("addresses");
            if e.addresses.is_empty() {
                errors.push(apath.clone(), ErrorKind::Required);
            } else if e.addresses.len() > MAX_ADDRESSES {
                errors.push(apath.clone(), ErrorKind::TooMany { max: MAX_ADDRESSES });
            }
            for (j, a) in e.addresses.iter().enumerate() {
                // Unknown address types are not checked further, as by the API server.
                let problem = match address_type {
                    "IPv4" => ipv4_problem(a),
                    "IPv6" => ipv6_problem(a),
                    "FQDN" => fqdn_problem(a),
                    _ => None,
                };
                if let Some(message) = problem {
                    errors.rule(apath.index(j), message);
                }
            }
        }
    }
    ports(slice, &path.field("ports"), errors);
}

fn ports(slice: &EndpointSlice, pp: &FieldPath, errors: &mut Errors) {
    if slice.ports.len() > MAX_PORTS {
        errors.push(pp.clone(), ErrorKind::TooMany { max: MAX_PORTS });
        return;
    }
    let mut names = HashSet::new();
    for (i, port) in slice.ports.iter().enumerate() {
        let ip = pp.index(i);
        // The API server defaults an absent name to "".
        let name = port.name.as_deref().unwrap_or("");
        if !name.is_empty() && (name.len() > 63 || !p::is_dns_label(name)) {
            errors.push(
                ip.field("name"),
                ErrorKind::Pattern {
                    pattern: meta::DNS1123_LABEL_PATTERN,
                },
            );
        }
        if !names.insert(name) {
            errors.push(
                ip.field("name"),
                ErrorKind::Duplicate {
                    value: name.to_owned(),
                },
            );
        }
        let protocol = port.protocol.as_deref().unwrap_or("TCP");
        if !PROTOCOLS.contains(&protocol) {
            errors.unsupported(&ip.field("protocol"), protocol, PROTOCOLS);
        }
        if let Some(a) = &port.app_protocol
            && !meta::is_qualified_name(a)
        {
            errors.push(
                ip.field("appProtocol"),
                ErrorKind::Pattern {
                    pattern: meta::QUALIFIED_NAME_PATTERN,
                },
            );
        }
    }
}

const INVALID_IP: &str = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)";

/// `IsValidIPv4Address` then `ValidateEndpointIP`.
fn ipv4_problem(s: &str) -> Option<&'static str> {
    match s.parse::<Ipv4Addr>() {
        Ok(ip) => endpoint_ip_problem(
            ip.is_unspecified(),
            ip.is_loopback(),
            ip.is_link_local(),
            // Go's IsLinkLocalMulticast for IPv4: 224.0.0.0/24.
            ip.octets()[..3] == [224, 0, 0],
        ),
        Err(_) => Some(ip_text_problem(s, false)),
    }
}

/// `IsValidIPv6Address` then `ValidateEndpointIP`.
fn ipv6_problem(s: &str) -> Option<&'static str> {
    if s.parse::<Ipv4Addr>().is_ok() {
        return Some("must be an IPv6 address");
    }
    match s.parse::<Ipv6Addr>() {
        Ok(ip) if ip.to_ipv4_mapped().is_some() => Some("must not be an IPv4-mapped IPv6 address"),
        Ok(ip) => {
            let seg = ip.segments();
            endpoint_ip_problem(
                ip.is_unspecified(),
                ip.is_loopback(),
                seg[0] & 0xffc0 == 0xfe80,
                // Go's IsLinkLocalMulticast for IPv6: ffX2::/16.
                seg[0] & 0xff0f == 0xff02,
            )
        }
        Err(_) => Some(ip_text_problem(s, true)),
    }
}

/// Why text that did not parse is not an address of the family: leading zeros in an IPv4
/// part, an IPv4-mapped IPv6 address where IPv4 is wanted, or not an IP at all.
fn ip_text_problem(s: &str, want_v6: bool) -> &'static str {
    if !want_v6 && let Ok(ip) = s.parse::<Ipv6Addr>() {
        return if ip.to_ipv4_mapped().is_some() {
            "must not be an IPv4-mapped IPv6 address"
        } else {
            "must be an IPv4 address"
        };
    }
    let parts: Vec<&str> = s.split('.').collect();
    let sloppy_v4 = parts.len() == 4
        && parts.iter().all(|p| {
            !p.is_empty()
                && p.bytes().all(|b| b.is_ascii_digit())
                && p.parse::<u32>().is_ok_and(|n| n <= 255)
        });
    if sloppy_v4 {
        return "must not have leading 0s";
    }
    INVALID_IP
}

fn endpoint_ip_problem(
    unspecified: bool,
    loopback: bool,
    link_local: bool,
    link_local_multicast: bool,
) -> Option<&'static str> {
    if unspecified {
        Some("may not be unspecified (0.0.0.0)")
    } else if loopback {
        Some("may not be in the loopback range (127.0.0.0/8, ::1/128)")
    } else if link_local {
        Some("may not be in the link-local range (169.254.0.0/16, fe80::/10)")
    } else if link_local_multicast {
        Some("may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)")
    } else {
        None
    }
}

/// `IsFullyQualifiedDomainName`.
fn fqdn_problem(s: &str) -> Option<&'static str> {
    if s.is_empty() {
        return Some("Required value");
    }
    let name = s.strip_suffix('.').unwrap_or(s);
    if name.len() > 253 || !p::is_dns_subdomain(name) {
        return Some("must be a lowercase RFC 1123 subdomain");
    }
    if !name.contains('.') {
        return Some("should be a domain with at least two segments separated by dots");
    }
    if name.split('.').any(|label| label.len() > 63) {
        return Some("each label must be no more than 63 characters");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    // Each case was answered by kube-apiserver v1.37 (a dry-run create of an EndpointSlice).
    #[test]
    fn ipv4_addresses_as_the_api_server_reads_them() {
        assert_eq!(ipv4_problem("10.0.0.1"), None);
        assert_eq!(ipv4_problem("010.0.0.1"), Some("must not have leading 0s"));
        assert_eq!(
            ipv4_problem("::ffff:1.2.3.4"),
            Some("must not be an IPv4-mapped IPv6 address")
        );
        assert!(ipv4_problem("127.0.0.1").unwrap().contains("loopback"));
        assert!(ipv4_problem("0.0.0.0").unwrap().contains("unspecified"));
        assert!(
            ipv4_problem("169.254.1.1")
                .unwrap()
                .contains("link-local range")
        );
        assert!(ipv4_problem("224.0.0.1").unwrap().contains("multicast"));
        assert_eq!(ipv4_problem("224.0.1.1"), None);
        assert_eq!(ipv4_problem("1.2.3"), Some(INVALID_IP));
    }

    #[test]
    fn ipv6_addresses_as_the_api_server_reads_them() {
        assert_eq!(ipv6_problem("2001:db8::1"), None);
        assert!(ipv6_problem("::1").unwrap().contains("loopback"));
        assert!(
            ipv6_problem("fe80::1")
                .unwrap()
                .contains("link-local range")
        );
        assert_eq!(ipv6_problem("1.2.3.4"), Some("must be an IPv6 address"));
        assert_eq!(
            ipv6_problem("::ffff:1.2.3.4"),
            Some("must not be an IPv4-mapped IPv6 address")
        );
        assert!(ipv6_problem("ff02::1").unwrap().contains("multicast"));
        assert_eq!(ipv6_problem("ff05::1"), None);
    }

    #[test]
    fn fqdns_need_two_lower_case_labels() {
        assert_eq!(fqdn_problem("a.b"), None);
        assert_eq!(fqdn_problem("a.b."), None);
        assert!(fqdn_problem("a").unwrap().contains("two segments"));
        assert!(fqdn_problem("A.b").is_some());
        assert!(fqdn_problem("a_b.c").is_some());
        assert!(fqdn_problem(&format!("{}.b", "a".repeat(64))).is_some());
        assert!(fqdn_problem("").is_some());
    }
}
