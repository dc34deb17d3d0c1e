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
use gamma_testenv::harness::release_v1_6_1;
use proptest::prelude::*;

gamma_testenv::test_main! {
    validate_status_resolve_and_explain_agree_on_hand_made_gateways_and_listener_sets,
    a_gateway_or_listener_set_the_api_server_refuses_is_left_out_whole,
    validate_status_resolve_and_explain_agree_on_hand_made_routes,
    a_crd_error_in_one_rule_refuses_the_route_while_engine_refusals_drop_the_rule,
    validate_status_resolve_and_explain_agree_on_generated_routes,
    validate_status_resolve_and_explain_agree_on_upstream_inputs if release_v1_6_1,
}

/// Checks every route, Gateway and ListenerSet of `snapshot` under `channel`; `label` names
/// the input in failures.
fn agree(snapshot: &Snapshot, channel: Channel, label: &str) {
    let opts = ValidateOptions::channel(channel);
    let mut build = BuildOptions::default();
    build.channel = channel;
    let table = RouteTable::build(snapshot, &build);
    let input = gamma_resolve::lower_with(snapshot, &opts);
    agree_on_gateways(snapshot, &opts, &table, &input, label);
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

/// The Gateway and ListenerSet half of [`agree`]: one the API server would refuse (any CRD
/// error) is left out whole: `Accepted=False` reason `Invalid` (GatewayConditionReason and
/// ListenerSetConditionReason Invalid) with its first error as the message, none of its
/// listeners bound (a request to them is passthrough), every route naming it `Accepted=False`
/// `NoMatchingParent`, and a request to its (parent Gateway's) addresses noted
/// `Gateway ns/name was left out: <error>` (`ListenerSet ...`). One the API server admits gets
/// no such verdict.
fn agree_on_gateways(
    snapshot: &Snapshot,
    opts: &ValidateOptions,
    table: &RouteTable,
    input: &gamma_resolve::input::TableInput,
    label: &str,
) {
    use gamma_resolve::{Decision, Request};
    let routes_naming = |kind: &str, ns: &str, name: &str| -> Vec<(String, String, usize)> {
        let mut out = Vec::new();
        for (_, r) in snapshot.iter() {
            let Some(view) = r.as_route() else { continue };
            let rns = view.metadata.namespace_or_default();
            for (pi, p) in view.parent_refs.iter().enumerate() {
                let pkind = p.kind.as_deref().unwrap_or("Gateway");
                let pgroup = p.group.as_deref().unwrap_or("gateway.networking.k8s.io");
                if pgroup == "gateway.networking.k8s.io"
                    && pkind == kind
                    && p.namespace.as_deref().unwrap_or(rns) == ns
                    && p.name == name
                    && r.validate_with(opts).is_ok()
                {
                    out.push((rns.to_string(), view.metadata.name.clone(), pi));
                }
            }
        }
        out
    };
    for gw in snapshot.gateways() {
        let (ns, name) = (
            gw.metadata.namespace_or_default(),
            gw.metadata.name.as_str(),
        );
        let status = table
            .gateway_status()
            .iter()
            .find(|g| g.namespace == ns && g.name == name)
            .unwrap_or_else(|| panic!("{label}: Gateway {ns}/{name}: no status"));
        let lowered = input
            .gateways
            .iter()
            .find(|g| g.namespace == ns && g.name == name)
            .unwrap();
        let parent = Parent {
            kind: "Gateway",
            namespace: ns,
            name,
            accepted: status.condition(ACCEPTED).unwrap(),
            listeners: status.listeners.len(),
            ips: &lowered.addresses,
            routes: routes_naming("Gateway", ns, name),
            // an admitted one is never Invalid
            invalid_when_admitted: false,
        };
        let Some(note) = parent.agrees(table, &gw.validate_with(opts), label) else {
            continue;
        };
        // refused: explain shows the note, and none of its listeners binds
        for ip in &lowered.addresses {
            let explained = table.explain(&Request::http(*ip, 80, "GET", "/"), 0);
            assert!(explained.left_out.contains(&note), "{note}: {explained:?}");
            for l in &gw.spec.listeners {
                let Ok(port) = u16::try_from(l.port) else {
                    continue;
                };
                let d = table.resolve(&Request::http(*ip, port, "GET", "/"), 0);
                // another (valid) Gateway on the same address may bind the port
                let shared = input.gateways.iter().any(|g| {
                    g.invalid.is_none()
                        && g.addresses.contains(ip)
                        && g.listeners.iter().any(|o| o.port == port)
                });
                assert!(
                    shared || matches!(d, Decision::Passthrough),
                    "{note}: {d:?}"
                );
            }
        }
    }
    for ls in snapshot.listener_sets() {
        let (ns, name) = (
            ls.metadata.namespace_or_default(),
            ls.metadata.name.as_str(),
        );
        let status = table
            .listener_set_status()
            .iter()
            .find(|l| l.namespace == ns && l.name == name)
            .unwrap_or_else(|| panic!("{label}: ListenerSet {ns}/{name}: no status"));
        let parent_ips: Vec<std::net::IpAddr> = input
            .listener_sets
            .iter()
            .filter(|l| l.namespace == ns && l.name == name)
            .filter_map(|l| l.parent.as_ref())
            .flat_map(|(gns, gname)| {
                input
                    .gateways
                    .iter()
                    .filter(move |g| g.namespace == *gns && g.name == *gname)
                    .flat_map(|g| g.addresses.iter().copied())
            })
            .collect();
        let parent = Parent {
            kind: "ListenerSet",
            namespace: ns,
            name,
            accepted: status.condition(ACCEPTED).unwrap(),
            listeners: status.listeners.len(),
            ips: &parent_ips,
            routes: routes_naming("ListenerSet", ns, name),
            // admitted, it is still Invalid when its parentRef is not a Gateway
            invalid_when_admitted: status.gateway.is_none(),
        };
        parent.agrees(table, &ls.validate_with(opts), label);
    }
}

/// What the table says of one Gateway or ListenerSet, for [`agree_on_gateways`].
struct Parent<'a> {
    kind: &'static str,
    namespace: &'a str,
    name: &'a str,
    accepted: &'a gamma_resolve::status::RouteCondition,
    /// Its `status.listeners` entries.
    listeners: usize,
    /// Where a request finds its notes: its (parent Gateway's) addresses.
    ips: &'a [std::net::IpAddr],
    /// The (namespace, name, parent index) of every admitted route naming it.
    routes: Vec<(String, String, usize)>,
    /// Whether an admitted one may still be `Accepted=False Invalid` (a ListenerSet whose
    /// parentRef is not a Gateway).
    invalid_when_admitted: bool,
}

impl Parent<'_> {
    /// Checks the verdict `validate` gives against the table's; for a refused object, returns
    /// its note (`Kind ns/name was left out: <first error>`).
    fn agrees(
        &self,
        table: &RouteTable,
        verdict: &Result<(), gamma_model::ValidationErrors>,
        label: &str,
    ) -> Option<String> {
        let (kind, ns, name, acc) = (self.kind, self.namespace, self.name, self.accepted);
        let who = format!("{label}: {kind} {ns}/{name}");
        let notes = |ip| -> Vec<String> {
            table
                .left_out_at(ip)
                .filter(|n| n.starts_with(&format!("{kind} {ns}/{name} ")))
                .map(str::to_owned)
                .collect()
        };
        let Err(errors) = verdict else {
            assert!(
                acc.status || acc.reason != "Invalid" || self.invalid_when_admitted,
                "{who}: admitted yet {acc:?}"
            );
            for ip in self.ips {
                assert!(notes(*ip).is_empty(), "{who}");
            }
            return None;
        };
        let first = errors.errors()[0].to_string();
        assert_eq!(
            (acc.status, acc.reason.as_str(), acc.message.as_str()),
            (false, "Invalid", first.as_str()),
            "{who}"
        );
        assert_eq!(
            self.listeners, 0,
            "{who}: listener status of a refused object"
        );
        let note = format!("{kind} {ns}/{name} was left out: {first}");
        for ip in self.ips {
            assert_eq!(notes(*ip), vec![note.clone()], "{who}");
        }
        for (rns, rname, pi) in &self.routes {
            let c = table
                .parent_conditions()
                .iter()
                .find(|s| s.namespace == *rns && s.name == *rname && s.parent_index == *pi)
                .and_then(|s| s.condition(ACCEPTED))
                .unwrap_or_else(|| panic!("{who}: {rns}/{rname}"));
            // the message names the parent's first error
            let why =
                format!("the parent {kind} was left out (the API server would refuse it): {first}");
            assert_eq!(
                (c.status, c.reason.as_str(), &c.message),
                (false, "NoMatchingParent", &why),
                "{who}: {rns}/{rname}"
            );
        }
        Some(note)
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

/// Gateways and ListenerSets the API server would refuse, each with a route on it, beside
/// admitted ones: two listeners with one name, a hostname on a TCP listener,
/// `allowedRoutes.kinds` with a bad group, a ListenerSet with 65 listeners. The admitted
/// Gateway has a listener of a protocol gamma-rs does not serve (reported on that listener,
/// the rest served).
fn hand_made_gateways() -> String {
    let many: Vec<String> = (0..65)
        .map(|i| format!("{{name: l{i}, port: {}, protocol: HTTP}}", 10000 + i))
        .collect();
    format!(
        r#"
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {{name: dup-names, namespace: app}}
spec:
  gatewayClassName: example
  addresses: [{{type: IPAddress, value: 192.0.2.21}}]
  listeners:
  - {{name: http, port: 80, protocol: HTTP}}
  - {{name: http, port: 8080, protocol: HTTP}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {{name: tcp-hostname, namespace: app}}
spec:
  gatewayClassName: example
  addresses: [{{type: IPAddress, value: 192.0.2.22}}]
  listeners:
  - {{name: http, port: 80, protocol: HTTP}}
  - {{name: tcp, port: 9000, protocol: TCP, hostname: a.example}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {{name: bad-kind-group, namespace: app}}
spec:
  gatewayClassName: example
  addresses: [{{type: IPAddress, value: 192.0.2.23}}]
  listeners:
  - name: http
    port: 80
    protocol: HTTP
    allowedRoutes: {{kinds: [{{group: "Not A Group!", kind: HTTPRoute}}]}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {{name: mixed, namespace: app}}
spec:
  gatewayClassName: example
  addresses: [{{type: IPAddress, value: 192.0.2.24}}]
  allowedListeners: {{namespaces: {{from: All}}}}
  listeners:
  - {{name: http, port: 80, protocol: HTTP}}
  - {{name: hbone, port: 15008, protocol: example.com/HBONE}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {{name: too-many, namespace: app}}
spec:
  parentRef: {{name: mixed}}
  listeners: [{}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {{name: fine-set, namespace: app}}
spec:
  parentRef: {{name: mixed}}
  listeners: [{{name: extra, port: 8081, protocol: HTTP}}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {{name: on-refused, namespace: app}}
spec:
  parentRefs: [{{name: dup-names}}, {{name: tcp-hostname}}, {{name: bad-kind-group}}, {{name: mixed}}]
  rules: [{{backendRefs: [{{name: web, port: 80}}]}}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {{name: on-sets, namespace: app}}
spec:
  parentRefs: [{{kind: ListenerSet, name: too-many}}, {{kind: ListenerSet, name: fine-set}}]
  rules: [{{backendRefs: [{{name: web, port: 80}}]}}]
"#,
        many.join(", ")
    )
}

fn validate_status_resolve_and_explain_agree_on_hand_made_gateways_and_listener_sets() {
    let snap = snapshot(&format!("{SERVICES}---{}", hand_made_gateways()));
    for channel in [Channel::Standard, Channel::Experimental] {
        agree(&snap, channel, "hand-made gateways");
    }
}

// The verdicts themselves, on the hand-made Gateways: the three refused Gateways and the
// refused ListenerSet are left out whole, with their first error; the admitted Gateway serves
// its HTTP listener and reports the one of an implementation-specific protocol on that
// listener only; its admitted ListenerSet joins it.
fn a_gateway_or_listener_set_the_api_server_refuses_is_left_out_whole() {
    use gamma_resolve::{Decision, Request};
    let snap = snapshot(&format!("{SERVICES}---{}", hand_made_gateways()));
    let table = RouteTable::build(&snap, &BuildOptions::default());
    let gw = |name: &str| {
        table
            .gateway_status()
            .iter()
            .find(|g| g.name == name)
            .unwrap()
    };
    for (name, path) in [
        ("dup-names", "spec.listeners"),
        ("tcp-hostname", "spec.listeners"),
        (
            "bad-kind-group",
            "spec.listeners[0].allowedRoutes.kinds[0].group",
        ),
    ] {
        let acc = gw(name).condition(ACCEPTED).unwrap();
        assert!(!acc.status && acc.reason == "Invalid", "{name}: {acc:?}");
        assert!(acc.message.starts_with(path), "{name}: {acc:?}");
        // Programmed stays the controller's to write
        assert!(gw(name).condition("Programmed").is_none(), "{name}");
    }
    let refused_ip = "192.0.2.21".parse().unwrap();
    assert!(matches!(
        table.resolve(&Request::http(refused_ip, 80, "GET", "/"), 0),
        Decision::Passthrough
    ));
    let route = |name: &str, pi: usize| {
        table
            .parent_conditions()
            .iter()
            .find(|s| s.name == name && s.parent_index == pi)
            .and_then(|s| s.condition(ACCEPTED))
            .map(|c| (c.status, c.reason.clone()))
            .unwrap()
    };
    for pi in 0..3 {
        assert_eq!(route("on-refused", pi), (false, "NoMatchingParent".into()));
    }
    // admitted, with a listener gamma-rs does not serve: the rest is served
    let mixed = gw("mixed");
    assert!(mixed.condition(ACCEPTED).unwrap().status, "{mixed:?}");
    assert_eq!(route("on-refused", 3), (true, "Accepted".into()));
    let mixed_ip = "192.0.2.24".parse().unwrap();
    assert!(matches!(
        table.resolve(&Request::http(mixed_ip, 80, "GET", "/"), 0),
        Decision::Forward(_)
    ));
    // the ListenerSets: the refused one is left out, the admitted one joins
    let set = |name: &str| {
        table
            .listener_set_status()
            .iter()
            .find(|l| l.name == name)
            .unwrap()
    };
    let acc = set("too-many").condition(ACCEPTED).unwrap();
    assert!(!acc.status && acc.reason == "Invalid", "{acc:?}");
    assert!(acc.message.starts_with("spec.listeners"), "{acc:?}");
    assert!(set("fine-set").is_accepted());
    assert_eq!(route("on-sets", 0), (false, "NoMatchingParent".into()));
    assert_eq!(route("on-sets", 1), (true, "Accepted".into()));
    assert_eq!(mixed.attached_listener_sets, 1);
    assert!(matches!(
        table.resolve(&Request::http(mixed_ip, 10000, "GET", "/"), 0),
        Decision::Passthrough
    ));
    assert!(matches!(
        table.resolve(&Request::http(mixed_ip, 8081, "GET", "/"), 0),
        Decision::Forward(_)
    ));
    let notes: Vec<&str> = table.left_out_at(mixed_ip).collect();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].starts_with("ListenerSet app/too-many was left out: spec.listeners"),
        "{notes:?}"
    );
}

fn validate_status_resolve_and_explain_agree_on_hand_made_routes() {
    let snap = snapshot(&format!("{SERVICES}---{HAND_MADE}"));
    for channel in [Channel::Standard, Channel::Experimental] {
        agree(&snap, channel, "hand-made");
    }
}

// The rule that decides, on the hand-made input: a CRD error in one rule refuses the route
// whole (the API server would not store it), while rules gamma-rs alone refuses are dropped.
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

    fn validate_status_resolve_and_explain_agree_on_generated_routes(route in generated_route()) {
        let snap = snapshot(&format!("{SERVICES}---\n{route}"));
        for channel in [Channel::Standard, Channel::Experimental] {
            agree(&snap, channel, &route);
        }
    }
}

/// The v1.6.1 tree (the test's precondition `release_v1_6_1`).
fn upstream_dir() -> PathBuf {
    PathBuf::from(gamma_testenv::upstream::v1_6_1().expect("the test's precondition"))
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
fn validate_status_resolve_and_explain_agree_on_upstream_inputs() {
    let dir = upstream_dir();
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
