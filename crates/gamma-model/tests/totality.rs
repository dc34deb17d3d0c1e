//! Validation and IR conversion are total: on arbitrary (decodable) objects they never panic,
//! and they agree with each other (Gateway API HTTPPathMatch: bad input must never crash).

use gamma_model::Validate;
use gamma_model::gateway;
use gamma_model::ir;
use gamma_model::validate::{Channel, ValidateOptions};
use proptest::prelude::*;
use serde_json::{Value, json};

/// Short strings over an alphabet that hits every pattern's edge characters.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => "[a-z]{1,8}",
        3 => "/[a-z]{1,5}",
        2 => "[a-z0-9./%*:#_ -]{0,10}",
        1 => "[A-Za-z0-9/\\-.%2fF#~]{0,6}",
        1 => Just(String::new()),
        1 => Just("/".to_owned()),
        1 => Just("*".to_owned()),
        1 => Just("é".to_owned()),
        1 => Just("a".repeat(260)),
    ]
}

fn pick(options: &'static [&'static str]) -> impl Strategy<Value = Value> {
    prop::sample::select(options).prop_map(|s| json!(s))
}

fn number() -> impl Strategy<Value = Value> {
    prop_oneof![
        4 => (1i64..100).prop_map(|n| json!(n)),
        1 => (-2i64..70_000).prop_map(|n| json!(n)),
        1 => Just(json!(1_000_001)),
        1 => Just(json!(i64::from(i32::MAX))),
    ]
}

fn opt(v: impl Strategy<Value = Value>) -> impl Strategy<Value = Value> {
    prop::option::of(v).prop_map(|o| o.unwrap_or(Value::Null))
}

fn backend() -> impl Strategy<Value = Value> {
    (opt(text().prop_map(Value::from)), opt(pick(&["Service", "Bucket", "*"])), text(), opt(number()), opt(number()))
        .prop_map(|(group, kind, name, port, weight)| {
            json!({"group": group, "kind": kind, "name": name, "port": port, "weight": weight})
        })
}

fn header_list() -> impl Strategy<Value = Value> {
    prop::collection::vec(
        (
            opt(pick(&["Exact", "RegularExpression", "Odd"])),
            text(),
            text(),
        )
            .prop_map(|(t, n, v)| json!({"type": t, "name": n, "value": v})),
        0..4,
    )
    .prop_map(Value::from)
}

fn filter() -> impl Strategy<Value = Value> {
    (
        pick(&[
            "RequestHeaderModifier",
            "ResponseHeaderModifier",
            "RequestMirror",
            "RequestRedirect",
            "URLRewrite",
            "ExtensionRef",
            "CORS",
            "ExternalAuth",
            "Unknown",
        ]),
        prop::collection::vec(0usize..8, 0..3),
        header_list(),
        backend(),
        text(),
        opt(number()),
    )
        .prop_map(|(t, fields, headers, b, s, n)| {
            let mut f = json!({"type": t});
            for field in fields {
                match field {
                    0 => f["requestHeaderModifier"] = json!({"set": headers, "remove": [s]}),
                    1 => f["responseHeaderModifier"] = json!({"add": headers}),
                    2 => {
                        f["requestMirror"] =
                            json!({"backendRef": b, "percent": n, "fraction": {"numerator": n}})
                    }
                    3 => {
                        f["requestRedirect"] = json!({"hostname": s, "statusCode": n, "scheme": s,
                            "path": {"type": "ReplacePrefixMatch", "replacePrefixMatch": s}})
                    }
                    4 => {
                        f["urlRewrite"] =
                            json!({"path": {"type": "ReplaceFullPath", "replacePrefixMatch": s}})
                    }
                    5 => f["extensionRef"] = json!({"group": s, "kind": s, "name": s}),
                    6 => {
                        f["cors"] =
                            json!({"allowOrigins": [s, "*"], "allowMethods": [s], "maxAge": n})
                    }
                    _ => {
                        f["externalAuth"] =
                            json!({"protocol": s, "backendRef": b, "http": {"path": s}})
                    }
                }
            }
            f
        })
}

fn http_match() -> impl Strategy<Value = Value> {
    (
        opt((opt(pick(&["Exact", "PathPrefix", "RegularExpression", "Glob"])), opt(text().prop_map(Value::from)))
            .prop_map(|(t, v)| json!({"type": t, "value": v}))),
        header_list(),
        header_list(),
        opt(pick(&["GET", "get", "PATCH"])),
    )
        .prop_map(|(path, headers, query, method)| {
            json!({"path": path, "headers": headers, "queryParams": query, "method": method})
        })
}

fn http_rule() -> impl Strategy<Value = Value> {
    (
        opt(prop::collection::vec(http_match(), 0..4).prop_map(Value::from)),
        prop::collection::vec(filter(), 0..3),
        prop::collection::vec(
            (backend(), prop::collection::vec(filter(), 0..2)).prop_map(|(mut b, fs)| {
                b["filters"] = Value::from(fs);
                b
            }),
            0..3,
        ),
        opt(text().prop_map(Value::from)),
        opt((text(), text()).prop_map(|(r, b)| json!({"request": r, "backendRequest": b}))),
    )
        .prop_map(|(matches, filters, backends, name, timeouts)| {
            json!({"matches": matches, "filters": filters, "backendRefs": backends,
                   "name": name, "timeouts": timeouts})
        })
}

fn http_route() -> impl Strategy<Value = Value> {
    (
        "[a-z]{1,8}",
        opt(text().prop_map(Value::from)),
        prop::collection::vec(prop_oneof![4 => "[a-z]{1,5}\\.com", 1 => text()], 0..3),
        prop::collection::vec(
            (text(), opt(text().prop_map(Value::from)), opt(number()), opt(pick(&["", "core"])))
                .prop_map(|(n, s, p, g)| json!({"name": n, "sectionName": s, "port": p, "group": g, "controllers": [format!("{n}.io/c")]})),
            0..2,
        ),
        opt(prop::collection::vec(http_rule(), 0..4).prop_map(Value::from)),
    )
        .prop_map(|(name, ns, hostnames, parents, rules)| {
            json!({"metadata": {"name": name, "namespace": ns},
                   "spec": {"hostnames": hostnames, "parentRefs": parents, "rules": rules}})
        })
}

fn grpc_route() -> impl Strategy<Value = Value> {
    let method = (
        opt(pick(&["Exact", "RegularExpression", "Other"])),
        opt(text().prop_map(Value::from)),
        opt(text().prop_map(Value::from)),
    )
        .prop_map(|(t, s, m)| json!({"type": t, "service": s, "method": m}));
    let grpc_match =
        (opt(method), header_list()).prop_map(|(m, h)| json!({"method": m, "headers": h}));
    let grpc_filter = filter().prop_map(|mut f| {
        // Reuse the HTTP generator; GRPCRoute knows four of its types.
        if f["type"] == json!("RequestRedirect") {
            f["type"] = json!("RequestMirror");
        }
        f
    });
    let rule = (
        prop::collection::vec(grpc_match, 0..3),
        prop::collection::vec(grpc_filter, 0..2),
        prop::collection::vec(backend(), 0..3),
    )
        .prop_map(|(m, f, b)| json!({"matches": m, "filters": f, "backendRefs": b}));
    ("[a-z]{1,8}", prop::collection::vec(rule, 0..4))
        .prop_map(|(name, rules)| json!({"metadata": {"name": name}, "spec": {"rules": rules}}))
}

/// Drops JSON nulls so that `Option` fields decode as absent.
fn strip_nulls(v: Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.into_iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k, strip_nulls(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.into_iter().map(strip_nulls).collect()),
        other => other,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    // Validation and conversion never panic, and they agree: a route that validates converts,
    // a route that converts whole validates, and a partial conversion accounts for every rule.
    #[test]
    fn http_route_validation_and_conversion_are_total(v in http_route()) {
        let Ok(route) = serde_json::from_value::<gateway::HttpRoute>(strip_nulls(v)) else {
            return Ok(());
        };
        for channel in [Channel::Standard, Channel::Experimental] {
            let opts = ValidateOptions::channel(channel);
            let valid = route.validate_with(&opts).is_ok();
            // The cheap first pass (detached paths) agrees with a full pass.
            let mut full = gamma_model::validate::Errors::default();
            route.collect_errors(&gamma_model::validate::FieldPath::root(), &opts, &mut full);
            prop_assert_eq!(valid, full.is_empty());
            let whole = ir::HttpRoute::from_wire_with(&route, &opts);
            prop_assert_eq!(valid, whole.is_ok());
            if let Ok(p) = ir::HttpRoute::from_wire_partial(&route, &opts) {
                let written = route.spec.rules.as_ref().map_or(0, Vec::len);
                if written > 0 {
                    prop_assert_eq!(p.value.rules.len() + p.dropped.len(), written);
                    prop_assert_eq!(p.value.rules.is_empty(), p.all_rules_dropped());
                }
                prop_assert_eq!(p.dropped.is_empty(), valid);
            }
        }
    }

    // The same agreement for GRPCRoute.
    #[test]
    fn grpc_route_validation_and_conversion_are_total(v in grpc_route()) {
        let Ok(route) = serde_json::from_value::<gateway::GrpcRoute>(strip_nulls(v)) else {
            return Ok(());
        };
        for channel in [Channel::Standard, Channel::Experimental] {
            let opts = ValidateOptions::channel(channel);
            let valid = route.validate_with(&opts).is_ok();
            prop_assert_eq!(valid, ir::GrpcRoute::from_wire_with(&route, &opts).is_ok());
            if let Ok(p) = ir::GrpcRoute::from_wire_partial(&route, &opts) {
                prop_assert_eq!(p.value.rules.len() + p.dropped.len(), route.spec.rules.len());
                prop_assert_eq!(p.dropped.is_empty(), valid);
            }
        }
    }

    // Every kind validates without panicking on arbitrary specs built from the same pieces.
    #[test]
    fn every_kind_validation_is_total(
        spec in prop::collection::btree_map(
            pick(&["listeners", "rules", "hostnames", "addresses", "from", "to", "targetRefs",
                   "validation", "controllerName", "parentRef", "ports", "gatewayClassName"])
                .prop_map(|v| v.as_str().unwrap_or_default().to_owned()),
            prop_oneof![
                prop::collection::vec(prop_oneof![
                    backend(),
                    filter(),
                    (text(), text(), number()).prop_map(|(n, p, port)| json!({
                        "name": n, "protocol": p, "port": port, "hostname": n,
                        "tls": {"mode": p, "certificateRefs": [{"name": n}]},
                        "group": n, "kind": p, "namespace": n, "type": p, "value": n,
                        "backendRefs": [{"name": n, "port": port}]})),
                ], 0..4).prop_map(Value::from),
                text().prop_map(Value::from),
                backend(),
            ],
            0..6,
        ),
        kind in prop::sample::select(&[
            "HTTPRoute", "GRPCRoute", "TLSRoute", "TCPRoute", "UDPRoute", "Gateway",
            "GatewayClass", "ListenerSet", "ReferenceGrant", "BackendTLSPolicy", "Service",
            "EndpointSlice",
        ][..]),
    ) {
        let api = match kind {
            "Service" => "v1",
            "EndpointSlice" => "discovery.k8s.io/v1",
            _ => "gateway.networking.k8s.io/v1",
        };
        let doc = json!({"apiVersion": api, "kind": kind, "metadata": {"name": "x"},
                         "spec": strip_nulls(Value::Object(spec.into_iter().collect()))});
        if let Ok(objects) = gamma_model::decode(&doc.to_string()) {
            for o in objects {
                for channel in [Channel::Standard, Channel::Experimental] {
                    let _ = o.validate_with(&ValidateOptions::channel(channel));
                }
            }
        }
    }
}
