//! One verdict per object (`docs/validation.md`, "One verdict per object"): what `validate`
//! says of a route (would the API server admit it, under the channel's CRDs), what the table's
//! status says (`Accepted`, `PartiallyInvalid`), and what `resolve` and `explain` note (routes
//! left out, rules dropped) agree, object by object and rule by rule.
//!
//! - A route the API server would refuse (any CRD error, in a rule or not) cannot exist in a
//!   cluster: it is left out whole, `Accepted=False` on every parentRef with its first error as
//!   the message, noted as left out, none of its rules served.
//! - A route it would admit is served; rules gamma-rs refuses are dropped one by one, listed by
//!   `PartiallyInvalid` ("Dropped Rule", Gateway API RouteConditionPartiallyInvalid) and noted
//!   rule by rule; when none is left, `Accepted=False` (Gateway API HTTPRouteRule.filters: "If
//!   all Route Rules in a Route are invalid, the entire Route would be considered invalid").
//!
//! Inputs: hand-made invalid routes, generated routes (valid and invalid pieces mixed) and,
//! with `GAMMA_UPSTREAM_DIR`, upstream's examples and invalid examples.
#![allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing)]

use std::path::{Path, PathBuf};

use gamma_model::Validate;
use gamma_model::validate::{Channel, ValidateOptions};
use gamma_model::{AnyResource, Snapshot};
use gamma_resolve::status::{ACCEPTED, PARTIALLY_INVALID};
use gamma_resolve::{BuildOptions, RouteTable, lower_route};
use proptest::prelude::*;

/// Checks every route of `snapshot` under `channel`; `label` names the input in failures.
fn agree(snapshot: &Snapshot, channel: Channel, label: &str) {
    let opts = ValidateOptions::channel(channel);
    let mut build = BuildOptions::default();
    build.channel = channel;
    let table = RouteTable::build(snapshot, &build);
    let input = gamma_resolve::lower_with(snapshot, &opts);
    for (_, resource) in snapshot.iter().filter(|(_, r)| r.as_route().is_some()) {
        let view = resource.as_route().unwrap();
        let (kind, ns, name) = (
            view.kind,
            view.metadata.namespace_or_default(),
            view.metadata.name.as_str(),
        );
        let who = format!("{label}: {kind} {ns}/{name} ({channel:?})");
        // validate's verdict: the API server's
        let admitted = resource.validate_with(&opts).is_ok();
        // the engine's, which status, resolve and explain read
        let lowered = lower_route(resource, &opts).unwrap();
        assert_eq!(lowered.invalid.is_none(), admitted, "{who}: {lowered:?}");
        let dropped: Vec<(usize, &gamma_resolve::input::Invalid)> = lowered
            .rules
            .iter()
            .enumerate()
            .filter_map(|(i, r)| Some((i, r.invalid.as_ref()?)))
            .collect();
        let none_left = !dropped.is_empty() && dropped.len() == lowered.rules.len();

        // status
        let entries: Vec<_> = table
            .parent_conditions()
            .iter()
            .filter(|s| s.kind == kind && s.namespace == ns && s.name == name)
            .collect();
        for st in &entries {
            let acc = st.condition(ACCEPTED).unwrap();
            let pi = st.condition(PARTIALLY_INVALID);
            if let Some(invalid) = &lowered.invalid {
                assert!(!acc.status, "{who}: refused yet {acc:?}");
                assert_eq!(
                    (acc.reason.as_str(), &acc.message),
                    (invalid.reason, &invalid.message),
                    "{who}"
                );
                assert!(pi.is_none(), "{who}: {pi:?}");
            } else if none_left {
                assert!(!acc.status, "{who}: no rule left yet {acc:?}");
                assert!(
                    acc.message.starts_with("all rules are invalid"),
                    "{who}: {acc:?}"
                );
            } else if acc.status {
                match pi {
                    None => assert!(dropped.is_empty(), "{who}: {dropped:?} not reported"),
                    Some(pi) => {
                        let list: Vec<String> =
                            dropped.iter().map(|(i, _)| i.to_string()).collect();
                        let want = format!("Dropped Rule(s) {}: ", list.join(", "));
                        assert!(pi.message.starts_with(&want), "{who}: {pi:?}");
                        assert_eq!(pi.reason, dropped[0].1.reason, "{who}");
                    }
                }
            }
        }
        if !admitted {
            assert_eq!(
                entries.len(),
                view.parent_refs.len(),
                "{who}: a refused route is reported on every parentRef"
            );
        }

        // resolve and explain: the notes at each parent's addresses (a Service's cluster
        // IPs, a Gateway's addresses, a ListenerSet's parent Gateway's)
        let prefix = format!("{kind} {ns}/{name} ");
        let want: Vec<String> = match &lowered.invalid {
            Some(invalid) => vec![format!("{prefix}was left out: {}", invalid.message)],
            None => dropped
                .iter()
                .map(|(i, inv)| {
                    format!(
                        "{prefix}rule {i} was dropped ({}): {}",
                        inv.reason, inv.message
                    )
                })
                .collect(),
        };
        for ip in parent_addresses(&input, &lowered) {
            let notes: Vec<&str> = table
                .left_out_at(ip)
                .filter(|n| n.starts_with(&prefix))
                .collect();
            assert_eq!(notes, want, "{who} at {ip}");
        }
    }
}

/// The addresses a request to one of `route`'s parents goes to.
fn parent_addresses(
    input: &gamma_resolve::input::TableInput,
    route: &gamma_resolve::input::RouteIr,
) -> std::collections::BTreeSet<std::net::IpAddr> {
    use gamma_resolve::input::ParentRefKind;
    let gateway = |ns: &str, name: &str| -> Vec<std::net::IpAddr> {
        input
            .gateways
            .iter()
            .filter(|g| g.namespace == ns && g.name == name)
            .flat_map(|g| g.addresses.iter().copied())
            .collect()
    };
    let mut out = std::collections::BTreeSet::new();
    for p in &route.parents {
        match p.kind {
            ParentRefKind::Service => out.extend(
                input
                    .services
                    .iter()
                    .filter(|s| s.namespace == p.namespace && s.name == p.name)
                    .flat_map(|s| s.cluster_ips.iter().copied()),
            ),
            ParentRefKind::Gateway => out.extend(gateway(&p.namespace, &p.name)),
            ParentRefKind::ListenerSet => {
                for ls in &input.listener_sets {
                    if ls.namespace == p.namespace
                        && ls.name == p.name
                        && let Some((gns, gname)) = &ls.parent
                    {
                        out.extend(gateway(gns, gname));
                    }
                }
            }
            _ => {}
        }
    }
    out
}

fn snapshot(yaml: &str) -> Snapshot {
    Snapshot::from_resources(gamma_model::decode(yaml).unwrap())
}

const SERVICES: &str = r#"
apiVersion: v1
kind: Service
metadata: {name: web, namespace: app}
spec: {clusterIP: 10.96.0.11, ports: [{port: 80}, {port: 9000}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: app}
spec:
  gatewayClassName: example
  addresses: [{type: IPAddress, value: 192.0.2.7}]
  listeners: [{name: http, port: 80, protocol: HTTP, allowedRoutes: {namespaces: {from: All}}}]
"#;

/// One route of each verdict: refused by the CRD in a rule, in its hostnames, for an unknown
/// enum value and (experimental only) for a header value; admitted with rules gamma-rs drops
/// (a regex past the size limit, a redirect on a backendRef, CR/LF in a header value on the
/// standard channel, an ExternalAuth filter); admitted with every rule dropped.
const HAND_MADE: &str = r#"
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: crd-rule, namespace: app}
spec:
  parentRefs: [{group: "", kind: Service, name: web, port: 80}, {name: gw}]
  rules:
  - matches: [{path: {value: /x}}]
    filters: [{type: RequestRedirect, requestRedirect: {statusCode: 301}}]
    backendRefs: [{name: web, port: 80}]
  - matches: [{path: {value: /ok}}]
    backendRefs: [{name: web, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: crd-hostname, namespace: app}
spec:
  parentRefs: [{group: "", kind: Service, name: web}]
  hostnames: [Not_A_Hostname]
  rules: [{backendRefs: [{name: web, port: 80}]}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: crd-enum, namespace: app}
spec:
  parentRefs: [{group: "", kind: Service, name: web}]
  rules:
  - matches: [{path: {type: Glob, value: /x}}]
  - backendRefs: [{name: web, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: engine-drops, namespace: app}
spec:
  parentRefs: [{group: "", kind: Service, name: web, port: 9000}, {name: gw}]
  rules:
  - matches: [{path: {type: RegularExpression, value: '(a{1000}){1000}'}}]
    backendRefs: [{name: web, port: 9000}]
  - backendRefs:
    - name: web
      port: 9000
      filters: [{type: RequestRedirect, requestRedirect: {statusCode: 301}}]
  - matches: [{path: {value: /inject}}]
    filters:
    - type: RequestHeaderModifier
      requestHeaderModifier: {set: [{name: x-b, value: "ok\r\nX-Evil: 1"}]}
    backendRefs: [{name: web, port: 9000}]
  - matches: [{path: {value: /ok}}]
    backendRefs: [{name: web, port: 9000}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: external-auth, namespace: app}
spec:
  parentRefs: [{name: gw}]
  rules:
  - filters:
    - type: ExternalAuth
      externalAuth: {protocol: GRPC, backendRef: {name: web, port: 9000}, grpc: {}}
    backendRefs: [{name: web, port: 80}]
  - matches: [{path: {value: /ok}}]
    backendRefs: [{name: web, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: GRPCRoute
metadata: {name: none-left, namespace: app}
spec:
  parentRefs: [{group: "", kind: Service, name: web, port: 80}]
  rules:
  - matches: [{method: {type: RegularExpression, service: '(a{1000}){1000}'}}]
    backendRefs: [{name: web, port: 80}]
"#;

#[test]
fn validate_status_resolve_and_explain_agree_on_hand_made_routes() {
    let snap = snapshot(&format!("{SERVICES}---{HAND_MADE}"));
    for channel in [Channel::Standard, Channel::Experimental] {
        agree(&snap, channel, "hand-made");
    }
}

// The rule that decides, on the hand-made input: a CRD error in one rule refuses the route
// whole (the API server would not store it), while rules gamma-rs alone refuses are dropped.
#[test]
fn a_crd_error_in_one_rule_refuses_the_route_while_engine_refusals_drop_the_rule() {
    let snap = snapshot(&format!("{SERVICES}---{HAND_MADE}"));
    let table = RouteTable::build(&snap, &BuildOptions::default());
    let st = |name: &str| {
        table
            .parent_conditions()
            .iter()
            .find(|s| s.name == name)
            .unwrap()
    };
    let refused = st("crd-rule").condition(ACCEPTED).unwrap();
    assert!(!refused.status && refused.reason == "IncompatibleFilters");
    let kept = st("engine-drops");
    assert!(kept.condition(ACCEPTED).unwrap().status);
    let pi = kept.condition(PARTIALLY_INVALID).unwrap();
    assert!(
        pi.message.starts_with("Dropped Rule(s) 0, 1, 2: "),
        "{}",
        pi.message
    );
}

/// Generated HTTPRoutes: each rule drawn from valid rules, rules the CRD refuses and rules
/// gamma-rs refuses, on a Service and a Gateway parent, sometimes with a bad hostname.
fn generated_route() -> impl Strategy<Value = String> {
    let rule = prop_oneof![
        3 => Just("{matches: [{path: {value: /ok}}], backendRefs: [{name: web, port: 80}]}"),
        1 => Just("{matches: [{path: {value: /a/..}}], backendRefs: [{name: web, port: 80}]}"),
        1 => Just("{matches: [{path: {type: Glob, value: /g}}]}"),
        1 => Just("{filters: [{type: RequestRedirect, requestRedirect: {statusCode: 301}}], backendRefs: [{name: web, port: 80}]}"),
        1 => Just("{matches: [{path: {type: RegularExpression, value: '(a{1000}){1000}'}}], backendRefs: [{name: web, port: 80}]}"),
        1 => Just("{backendRefs: [{name: web, port: 80, filters: [{type: RequestRedirect, requestRedirect: {statusCode: 301}}]}]}"),
        1 => Just("{filters: [{type: RequestHeaderModifier, requestHeaderModifier: {add: [{name: x-a, value: \"a\\nb\"}]}}], backendRefs: [{name: web, port: 80}]}"),
        1 => Just("{matches: [{headers: [{name: x-a, value: \"a\\rb\"}]}], backendRefs: [{name: web, port: 80}]}"),
        1 => Just("{timeouts: {request: 1s, backendRequest: 2s}, backendRefs: [{name: web, port: 80}]}"),
    ];
    (
        proptest::collection::vec(rule, 0..5),
        proptest::bool::weighted(0.1),
        0..3usize,
    )
        .prop_map(|(rules, bad_host, parents)| {
            let parents = [
                "[{group: \"\", kind: Service, name: web, port: 80}]",
                "[{name: gw}]",
                "[{group: \"\", kind: Service, name: web}, {name: gw}]",
            ][parents];
            let host = if bad_host {
                "[Bad_Host]"
            } else {
                "[a.example]"
            };
            format!(
                "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\n\
                 metadata: {{name: gen, namespace: app}}\n\
                 spec: {{parentRefs: {parents}, hostnames: {host}, rules: [{}]}}\n",
                rules.join(", ")
            )
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn validate_status_resolve_and_explain_agree_on_generated_routes(route in generated_route()) {
        let snap = snapshot(&format!("{SERVICES}---\n{route}"));
        for channel in [Channel::Standard, Channel::Experimental] {
            agree(&snap, channel, &route);
        }
    }
}

fn upstream_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("GAMMA_UPSTREAM_DIR").map(PathBuf::from);
    if dir.is_none() {
        eprintln!("skipped: GAMMA_UPSTREAM_DIR is not set: skipping the upstream inputs");
    }
    dir
}

fn yaml_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries {
            let p = entry.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "yaml" || e == "yml") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

// Upstream's examples (valid) and invalid examples (each refused by the API server), each
// file on its own and, for the examples, all of a channel's files in one snapshot (routes then
// find their Gateways and Services).
#[test]
fn validate_status_resolve_and_explain_agree_on_upstream_inputs() {
    let Some(dir) = upstream_dir() else {
        return;
    };
    let mut checked = 0;
    for (sub, channel) in [
        ("examples/standard", Channel::Standard),
        ("examples/experimental", Channel::Experimental),
        ("hack/invalid-examples/standard", Channel::Standard),
        ("hack/invalid-examples/experimental", Channel::Experimental),
    ] {
        let mut all: Vec<AnyResource> = Vec::new();
        for file in yaml_files(&dir.join(sub)) {
            let text = std::fs::read_to_string(&file).unwrap();
            // a few upstream files hold kinds gamma-rs does not read
            let Ok(resources) = gamma_model::decode(&text) else {
                continue;
            };
            let snap = Snapshot::from_resources(resources.clone());
            agree(&snap, channel, &file.display().to_string());
            checked += snap.iter().filter(|(_, r)| r.as_route().is_some()).count();
            all.extend(resources);
        }
        if sub.starts_with("examples/") {
            agree(&Snapshot::from_resources(all), channel, sub);
        }
    }
    assert!(checked > 50, "only {checked} upstream routes checked");
}
