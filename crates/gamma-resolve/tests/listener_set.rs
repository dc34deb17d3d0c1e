//! ListenerSet parents end to end (decode -> Snapshot -> RouteTable::build -> ListenerSet,
//! Gateway and route status, resolve and explain): GEP-1713 and the ListenerSet API reference
//! (the v1.6.1 CRD field docs).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use common::manifest::{route_condition as route_cond, table};
use gamma_model::Snapshot;
use gamma_resolve::gateway_status::{
    CONFLICTED, HOSTNAME_CONFLICT, LISTENERS_NOT_VALID, PROTOCOL_CONFLICT, REF_NOT_PERMITTED,
};
use gamma_resolve::listener_set_status::{
    ListenerSetStatus, NOT_ALLOWED, PARENT_NOT_ACCEPTED, PROGRAMMED,
};
use gamma_resolve::status::{
    ACCEPTED, NO_MATCHING_PARENT, NOT_ALLOWED_BY_LISTENERS, RESOLVED_REFS, RouteCondition,
};
use gamma_resolve::*;

fn ls<'t>(t: &'t RouteTable, ns: &str, name: &str) -> &'t ListenerSetStatus {
    t.listener_set_status()
        .iter()
        .find(|s| s.namespace == ns && s.name == name)
        .unwrap_or_else(|| panic!("no ListenerSet {ns}/{name}: {:?}", t.listener_set_status()))
}

fn listener_cond(s: &ListenerSetStatus, listener: &str, type_: &str) -> RouteCondition {
    s.listener(listener)
        .and_then(|l| l.condition(type_))
        .cloned()
        .unwrap_or_else(|| panic!("no {type_} on {listener}: {s:?}"))
}

/// The route that serves GET `path` for `host` on the Gateway address, port `port`.
fn served_by(t: &RouteTable, port: u16, host: &str, path: &str) -> Option<String> {
    let req = Request::http(GW_IP.parse().unwrap(), port, "GET", path).with_host(host);
    t.resolve(&req, 0).rule().map(|r| r.route.to_string())
}

const GW_IP: &str = "192.0.2.10";

fn gateway(allowed: &str) -> String {
    format!(
        r#"
apiVersion: v1
kind: Namespace
metadata: {{name: infra}}
---
apiVersion: v1
kind: Namespace
metadata: {{name: team, labels: {{listeners: allowed}}}}
---
apiVersion: v1
kind: Namespace
metadata: {{name: other}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {{name: gw, namespace: infra}}
spec:
  gatewayClassName: example
  addresses: [{{type: IPAddress, value: {GW_IP}}}]{allowed}
  listeners:
  - name: web
    port: 80
    protocol: HTTP
    hostname: gw.example.com
    allowedRoutes: {{namespaces: {{from: All}}}}
---
apiVersion: v1
kind: Service
metadata: {{name: app, namespace: infra}}
spec: {{clusterIP: 10.96.0.20, ports: [{{port: 8080}}]}}
"#
    )
}

fn listener_set(ns: &str, name: &str, created: &str, listeners: &str) -> String {
    format!(
        r#"
---
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {{name: {name}, namespace: {ns}, creationTimestamp: "{created}"}}
spec:
  parentRef: {{name: gw, namespace: infra}}
  listeners:{listeners}
"#
    )
}

fn http_listener(name: &str, port: u16, host: &str) -> String {
    format!(
        "\n  - {{name: {name}, port: {port}, protocol: HTTP, hostname: {host}, allowedRoutes: {{namespaces: {{from: All}}}}}}"
    )
}

/// An HTTPRoute in `ns` with the parentRefs given (YAML flow items) and one rule for `path`.
fn route(ns: &str, name: &str, parents: &str, path: &str) -> String {
    format!(
        r#"
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {{name: {name}, namespace: {ns}}}
spec:
  parentRefs: [{parents}]
  rules:
  - matches: [{{path: {{type: PathPrefix, value: {path}}}}}]
    backendRefs: [{{name: app, namespace: infra, port: 8080}}]
---
apiVersion: gateway.networking.k8s.io/v1beta1
kind: ReferenceGrant
metadata: {{name: from-{ns}-{name}, namespace: infra}}
spec:
  from: [{{group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: {ns}}}]
  to: [{{group: "", kind: Service}}]
"#
    )
}

const LS_PARENT: &str = "{group: gateway.networking.k8s.io, kind: ListenerSet, name: ";

// Gateway AllowedListeners: "The default value is to allow no ListenerSets"; GEP-1713 (Gateway
// & ListenerSet Handshake): "By default a Gateway MUST NOT allow ListenerSets to be attached";
// ListenerSetConditionReason NotAllowed. Its listeners join nothing, so they bind nothing and
// its routes attach to nothing.
#[test]
fn listener_set_is_not_allowed_by_default_and_binds_nothing() {
    let yaml = format!(
        "{}{}{}",
        gateway(""),
        listener_set(
            "infra",
            "ls",
            "2025-01-01T00:00:00Z",
            &http_listener("extra", 8081, "ls.example.com")
        ),
        route("infra", "r", &format!("{LS_PARENT}ls}}"), "/"),
    );
    let t = table(&yaml);
    let s = ls(&t, "infra", "ls");
    for type_ in [ACCEPTED, PROGRAMMED] {
        let c = s.condition(type_).unwrap();
        assert!(!c.status, "{c:?}");
        assert_eq!(c.reason, NOT_ALLOWED);
    }
    assert!(s.listeners.is_empty());
    assert_eq!(t.gateway_status()[0].attached_listener_sets, 0);
    let c = route_cond(&t, "r", 0, ACCEPTED);
    assert!(!c.status);
    assert_eq!(c.reason, NOT_ALLOWED_BY_LISTENERS);
    let req = Request::http(GW_IP.parse().unwrap(), 8081, "GET", "/").with_host("ls.example.com");
    assert_eq!(t.resolve(&req, 0), Decision::Passthrough);
}

// Gateway AllowedListeners.namespaces.from: "Same: Only ListenerSets in the same namespace may
// be attached", "Selector: ListenerSets in namespaces selected by the selector", "All:
// ListenerSets in all namespaces"; GatewayStatus.attachedListenerSets counts the ListenerSets
// selected by allowedListeners whose Accepted is True.
#[test]
fn allowed_listeners_admits_listener_sets_by_namespace() {
    let sets = format!(
        "{}{}{}",
        listener_set(
            "infra",
            "same",
            "2025-01-01T00:00:00Z",
            &http_listener("a", 8081, "a.example.com")
        ),
        listener_set(
            "team",
            "selected",
            "2025-01-01T00:00:00Z",
            &http_listener("b", 8082, "b.example.com")
        ),
        listener_set(
            "other",
            "unselected",
            "2025-01-01T00:00:00Z",
            &http_listener("c", 8083, "c.example.com")
        ),
    );
    let cases = [
        (
            "\n  allowedListeners: {namespaces: {from: None}}",
            [false, false, false],
        ),
        (
            "\n  allowedListeners: {namespaces: {from: Same}}",
            [true, false, false],
        ),
        (
            "\n  allowedListeners: {namespaces: {from: Selector, selector: {matchLabels: {listeners: allowed}}}}",
            [false, true, false],
        ),
        (
            "\n  allowedListeners: {namespaces: {from: All}}",
            [true, true, true],
        ),
    ];
    for (allowed, want) in cases {
        let t = table(&format!("{}{sets}", gateway(allowed)));
        let got: Vec<bool> = [
            ("infra", "same"),
            ("team", "selected"),
            ("other", "unselected"),
        ]
        .iter()
        .map(|(ns, n)| ls(&t, ns, n).is_accepted())
        .collect();
        assert_eq!(got, want, "{allowed}");
        for ((ns, n), ok) in [
            ("infra", "same"),
            ("team", "selected"),
            ("other", "unselected"),
        ]
        .iter()
        .zip(want)
        {
            if !ok {
                assert_eq!(
                    ls(&t, ns, n).condition(ACCEPTED).unwrap().reason,
                    NOT_ALLOWED
                );
            }
        }
        let count = want.iter().filter(|w| **w).count() as u32;
        assert_eq!(
            t.gateway_status()[0].attached_listener_sets,
            count,
            "{allowed}"
        );
    }
}

const ALL: &str = "\n  allowedListeners: {namespaces: {from: All}}";

// ListenerSetSpec.listeners: the merged list's precedence is "1. "parent" Gateway 2.
// ListenerSet ordered by creation time (oldest first) 3. ListenerSet ordered alphabetically by
// "{namespace}/{name}""; GEP-1713 (Listener and ListenerSet Conflicts): "the first Listener in
// the precedence list MUST be accepted ... while conflicting listeners MUST have a `Conflicted`
// condition set to `True`". A ListenerSet whose every listener lost is not accepted
// (ListenersNotValid); one with a listener left stays accepted.
#[test]
fn listener_conflicts_are_won_by_the_gateway_then_the_oldest_listener_set() {
    let older = format!(
        "{}{}{}",
        http_listener("own", 80, "older.example.com"),
        // the Gateway's web listener has this hostname on this port
        http_listener("taken", 80, "gw.example.com"),
        "\n  - {name: raw, port: 80, protocol: TCP, allowedRoutes: {namespaces: {from: All}}}",
    );
    let yaml = format!(
        "{}{}{}{}{}",
        gateway(ALL),
        // created later, but this is the input order: precedence must not depend on it
        listener_set(
            "team",
            "younger",
            "2025-06-01T00:00:00Z",
            &http_listener("mine", 80, "older.example.com")
        ),
        listener_set("team", "older", "2025-01-01T00:00:00Z", &older),
        route(
            "team",
            "on-older",
            &format!("{LS_PARENT}older, sectionName: own}}"),
            "/"
        ),
        route("team", "on-younger", &format!("{LS_PARENT}younger}}"), "/"),
    );
    let t = table(&yaml);
    let older = ls(&t, "team", "older");
    assert!(older.is_accepted(), "{older:?}");
    assert_eq!(
        older.condition(ACCEPTED).unwrap().reason,
        LISTENERS_NOT_VALID
    );
    let own = listener_cond(older, "own", ACCEPTED);
    assert!(own.status, "{own:?}");
    assert!(!listener_cond(older, "own", CONFLICTED).status);
    for (listener, reason) in [("taken", HOSTNAME_CONFLICT), ("raw", PROTOCOL_CONFLICT)] {
        for type_ in [ACCEPTED, PROGRAMMED] {
            let c = listener_cond(older, listener, type_);
            assert_eq!((c.status, c.reason.as_str()), (false, reason), "{listener}");
        }
        let c = listener_cond(older, listener, CONFLICTED);
        assert_eq!((c.status, c.reason.as_str()), (true, reason), "{listener}");
    }
    let younger = ls(&t, "team", "younger");
    let c = younger.condition(ACCEPTED).unwrap();
    assert_eq!((c.status, c.reason.as_str()), (false, LISTENERS_NOT_VALID));
    let c = listener_cond(younger, "mine", CONFLICTED);
    assert_eq!((c.status, c.reason.as_str()), (true, HOSTNAME_CONFLICT));
    // the other ListenerSet is not named (GEP-1713: avoid exposing other users' information)
    assert!(!c.message.contains("team/older"), "{c:?}");
    // the Gateway's own listener never loses to a ListenerSet
    let gw = &t.gateway_status()[0];
    assert!(
        gw.listener("web")
            .unwrap()
            .condition(CONFLICTED)
            .is_some_and(|c| !c.status)
    );
    assert_eq!(gw.attached_listener_sets, 1);
    // "A Route MAY attach to a conflicted ListenerSet": the route stays accepted and counted,
    // while the traffic for that hostname goes to the winner's routes
    assert!(route_cond(&t, "on-younger", 0, ACCEPTED).status);
    assert_eq!(younger.listener("mine").unwrap().attached_routes, 1);
    assert_eq!(
        served_by(&t, 80, "older.example.com", "/x").as_deref(),
        Some("HTTPRoute team/on-older")
    );
}

// GEP-1713 (Gateway Parents and sectionName): a Route attaching to the Gateway "MUST attach
// only to the Gateway listeners specified in `.spec.listeners` and MUST NOT attach to any
// listeners in the child `ListenerSets`"; a sectionName that only a ListenerSet has "is not
// valid and the route's `Accepted` status condition should be set to `False`"
// (NoMatchingParent). A ListenerSet parentRef is the direct parent: its sectionName selects
// among the ListenerSet's listeners, and allowedRoutes Same means the ListenerSet's namespace.
#[test]
fn routes_attach_to_the_direct_parent_only() {
    let listeners = format!(
        "{}{}",
        http_listener("shared", 8081, "ls.example.com"),
        "\n  - {name: same-only, port: 8082, protocol: HTTP, hostname: same.example.com}",
    );
    let yaml = format!(
        "{}{}{}{}{}{}{}",
        gateway(ALL),
        listener_set("team", "ls", "2025-01-01T00:00:00Z", &listeners),
        // the Gateway parent reaches only its own web listener
        route("infra", "via-gateway", "{name: gw}", "/gw"),
        route(
            "infra",
            "gateway-section",
            "{name: gw, sectionName: shared}",
            "/bad"
        ),
        route(
            "team",
            "via-set",
            &format!(
                "{LS_PARENT}ls, sectionName: shared}}, {{name: gw, namespace: infra, sectionName: web}}"
            ),
            "/ls"
        ),
        route(
            "team",
            "missing-section",
            &format!("{LS_PARENT}ls, sectionName: nope}}"),
            "/"
        ),
        // allowedRoutes Same on a ListenerSet listener: the ListenerSet's namespace (team)
        route(
            "infra",
            "other-namespace",
            &format!("{LS_PARENT}ls, namespace: team, sectionName: same-only}}"),
            "/"
        ),
    );
    let t = table(&yaml);
    assert!(route_cond(&t, "via-gateway", 0, ACCEPTED).status);
    let c = route_cond(&t, "gateway-section", 0, ACCEPTED);
    assert_eq!((c.status, c.reason.as_str()), (false, NO_MATCHING_PARENT));
    // route status is per parentRef: both parents of via-set accept it
    assert!(route_cond(&t, "via-set", 0, ACCEPTED).status);
    assert!(route_cond(&t, "via-set", 1, ACCEPTED).status);
    assert!(route_cond(&t, "via-set", 0, RESOLVED_REFS).status);
    let c = route_cond(&t, "missing-section", 0, ACCEPTED);
    assert_eq!((c.status, c.reason.as_str()), (false, NO_MATCHING_PARENT));
    let c = route_cond(&t, "other-namespace", 0, ACCEPTED);
    assert_eq!(
        (c.status, c.reason.as_str()),
        (false, NOT_ALLOWED_BY_LISTENERS)
    );
    // ListenerEntryStatus.attachedRoutes: the ListenerSet listener counts via-set only
    let s = ls(&t, "team", "ls");
    assert_eq!(s.listener("shared").unwrap().attached_routes, 1);
    assert_eq!(s.listener("same-only").unwrap().attached_routes, 0);
    assert_eq!(
        t.gateway_status()[0]
            .listener("web")
            .unwrap()
            .attached_routes,
        2
    );
    // traffic: the ListenerSet listener's port on the Gateway's address reaches its routes,
    // and only them; the Gateway's route is not there
    assert_eq!(
        served_by(&t, 8081, "ls.example.com", "/ls").as_deref(),
        Some("HTTPRoute team/via-set")
    );
    let req = Request::http(GW_IP.parse().unwrap(), 8081, "GET", "/gw").with_host("ls.example.com");
    assert_eq!(t.resolve(&req, 0).status(), Some(Status::Http(404)));
    assert_eq!(
        served_by(&t, 80, "gw.example.com", "/gw").as_deref(),
        Some("HTTPRoute infra/via-gateway")
    );
    // a listener without routes answers 404 (HTTPRouteRule.matches)
    let req = Request::http(GW_IP.parse().unwrap(), 8082, "GET", "/").with_host("same.example.com");
    assert_eq!(t.resolve(&req, 0).status(), Some(Status::Http(404)));
    // explain names the ListenerSet listener the request went through
    let req = Request::http(GW_IP.parse().unwrap(), 8081, "GET", "/ls").with_host("ls.example.com");
    let ex = t.explain(&req, 0);
    assert_eq!(
        ex.route_set.as_deref(),
        Some("listener shared of ListenerSet team/ls (Gateway infra/gw)")
    );
}

// GEP-1713 ReferenceGrant Semantics: "When a `ReferenceGrant` is applied to a `Gateway` it MUST
// NOT be inherited by child `ListenerSets`"; a listener whose certificate Secret is in another
// namespace needs a grant from the ListenerSet (ResolvedRefs=False RefNotPermitted otherwise),
// and a ListenerSet with no valid listener is not accepted (ListenersNotValid).
#[test]
fn listener_set_certificates_need_grants_of_their_own() {
    let https = |name: &str, host: &str| {
        format!(
            "\n  - {{name: {name}, port: 443, protocol: HTTPS, hostname: {host}, tls: {{certificateRefs: [{{name: cert, namespace: certs}}]}}}}"
        )
    };
    let grant = |name: &str, kind: &str, ns: &str| {
        format!(
            r#"
---
apiVersion: gateway.networking.k8s.io/v1beta1
kind: ReferenceGrant
metadata: {{name: {name}, namespace: certs}}
spec:
  from: [{{group: gateway.networking.k8s.io, kind: {kind}, namespace: {ns}}}]
  to: [{{group: "", kind: Secret}}]
"#
        )
    };
    let yaml = format!(
        "{}{}{}{}{}",
        gateway(ALL),
        grant("for-gateway", "Gateway", "infra"),
        grant("for-granted", "ListenerSet", "team"),
        listener_set(
            "team",
            "granted",
            "2025-01-01T00:00:00Z",
            &https("tls", "a.example.com")
        ),
        listener_set(
            "infra",
            "inherits",
            "2025-01-01T00:00:00Z",
            &https("tls", "b.example.com")
        ),
    );
    let t = table(&yaml);
    let granted = ls(&t, "team", "granted");
    assert!(granted.is_accepted(), "{granted:?}");
    assert!(listener_cond(granted, "tls", RESOLVED_REFS).status);
    // infra/inherits shares the Gateway's namespace, but not its grant
    let inherits = ls(&t, "infra", "inherits");
    let c = listener_cond(inherits, "tls", RESOLVED_REFS);
    assert_eq!((c.status, c.reason.as_str()), (false, REF_NOT_PERMITTED));
    let c = inherits.condition(ACCEPTED).unwrap();
    assert_eq!((c.status, c.reason.as_str()), (false, LISTENERS_NOT_VALID));
    assert_eq!(t.gateway_status()[0].attached_listener_sets, 1);
}

// ListenerSetConditionReason ParentNotAccepted: "the parent Gateway is not accepted"; a
// ListenerSet naming a Gateway that does not exist joins nothing.
#[test]
fn listener_set_of_a_missing_gateway_is_not_accepted() {
    let yaml = format!(
        "{}{}",
        gateway(ALL),
        r#"
---
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: lost, namespace: infra}
spec:
  parentRef: {name: nope}
  listeners: [{name: a, port: 8081, protocol: HTTP}]
"#
    );
    let t = table(&yaml);
    let s = ls(&t, "infra", "lost");
    let c = s.condition(ACCEPTED).unwrap();
    assert_eq!((c.status, c.reason.as_str()), (false, PARENT_NOT_ACCEPTED));
    assert_eq!(s.gateway, None);
}

// RouteTable::update answers as a full build: a change to a Gateway that ListenerSets join, to
// a route on that Gateway, or to the Namespace labels its allowedListeners selector reads,
// reaches the ListenerSets' status and bindings too (GEP-1713: the merged listener list).
#[test]
fn updates_of_a_gateway_with_listener_sets_agree_with_full_builds() {
    let selector = "\n  allowedListeners: {namespaces: {from: Selector, selector: {matchLabels: {listeners: allowed}}}}";
    let base = format!(
        "{}{}{}{}",
        gateway(selector),
        listener_set(
            "team",
            "ls",
            "2025-01-01T00:00:00Z",
            &http_listener("extra", 8081, "ls.example.com")
        ),
        route("team", "on-set", &format!("{LS_PARENT}ls}}"), "/ls"),
        route("infra", "on-gateway", "{name: gw}", "/gw"),
    );
    let mut snapshot = Snapshot::from_resources(gamma_model::decode(&base).unwrap());
    let options = BuildOptions::default();
    let mut table = RouteTable::build(&snapshot, &options);
    use gamma_model::{ObjectKey, ResourceKind as K};
    let gw_key = ObjectKey::new(K::Gateway, "infra", "gw");
    let changes = [
        // the Gateway now admits no ListenerSet
        (
            gw_key.clone(),
            gateway("").split("---").nth(4).unwrap().to_string(),
        ),
        // and again all of them, with its listener moved onto the ListenerSet's port
        (
            gw_key,
            gateway(ALL)
                .split("---")
                .nth(4)
                .unwrap()
                .replace("port: 80", "port: 8081")
                .replace("gw.example.com", "ls.example.com"),
        ),
        // a route on the Gateway
        (
            ObjectKey::new(K::HttpRoute, "infra", "on-gateway"),
            route("infra", "on-gateway", "{name: gw}", "/other")
                .split("---")
                .nth(1)
                .unwrap()
                .to_string(),
        ),
        // the Namespace label the selector read
        (
            ObjectKey::new(K::Namespace, "", "team"),
            "\napiVersion: v1\nkind: Namespace\nmetadata: {name: team}\n".to_string(),
        ),
    ];
    let grid = |t: &RouteTable| -> Vec<String> {
        let mut out = Vec::new();
        for port in [80, 8081] {
            for host in ["gw.example.com", "ls.example.com"] {
                for path in ["/ls", "/gw", "/other"] {
                    let req =
                        Request::http(GW_IP.parse().unwrap(), port, "GET", path).with_host(host);
                    out.push(format!("{port} {host} {path}: {:?}", t.resolve(&req, 0)));
                }
            }
        }
        out
    };
    for (step, (key, yaml)) in changes.iter().enumerate() {
        let mut objects = gamma_model::decode(yaml).unwrap();
        assert_eq!(objects.len(), 1, "{yaml}");
        let object = objects.remove(0);
        let previous = snapshot.upsert(object);
        let updated = table.update(&snapshot, &options, key, previous.as_deref());
        let built = RouteTable::build(&snapshot, &options);
        assert_eq!(grid(&updated), grid(&built), "step {step}");
        assert_eq!(
            updated.parent_conditions(),
            built.parent_conditions(),
            "step {step}"
        );
        assert_eq!(
            updated.gateway_status(),
            built.gateway_status(),
            "step {step}"
        );
        assert_eq!(
            updated.listener_set_status(),
            built.listener_set_status(),
            "step {step}"
        );
        table = updated;
    }
}
