//! `gammactl authorize --from-identity ID --to IP:PORT`: XAuthorizationPolicy (GEP-3779,
//! proposal) decisions through gamma-authz, explained; and
//! `gammactl crd-extension authorization-policy`, the CRD of the proposal model generated from
//! gamma-model's JSON Schema.

use std::net::{IpAddr, SocketAddr};

use gamma_authz::{Authorizer, Baseline, Config, Destination, Explanation, Identity, Verdict};
use gamma_mesh::model::ResourceKind;
use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::cli::{AuthorizeArgs, BaselineArg, CrdPrintArgs, Format};
use crate::failure::{Failure, input, usage};
use crate::output::{emit, emit_line, print, warn};
use crate::style::Style;

/// The answer, as `-o json` prints it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Answer {
    /// `allow` or `deny`.
    verdict: Verdict,
    /// Why, in one line.
    reason: String,
    /// The peer as a SPIFFE URI; absent when unauthenticated.
    #[serde(skip_serializing_if = "Option::is_none")]
    peer: Option<String>,
    /// The address asked about.
    to: String,
    /// The Service the address belongs to, `namespace/name`.
    #[serde(skip_serializing_if = "Option::is_none")]
    service: Option<String>,
    /// One decision per Pod the address leads to.
    destinations: Vec<Explanation>,
}

/// The peer: `unauthenticated`, or an identity in any of the three forms.
pub(crate) fn peer(text: &str, config: &Config) -> Result<Option<Identity>, Failure> {
    if text == "unauthenticated" {
        return Ok(None);
    }
    Identity::parse(text, config)
        .map(Some)
        .map_err(|e| usage(format!("--from-identity: {e}")))
}

/// The engine configuration of `--trust-domain` and `--baseline`.
pub(crate) fn config(trust_domain: &str, baseline: BaselineArg) -> Config {
    let baseline = match baseline {
        BaselineArg::Allow => Baseline::Allow,
        BaselineArg::Deny => Baseline::Deny,
    };
    Config::with_trust_domain(trust_domain).baseline(baseline)
}

pub fn run(args: &AuthorizeArgs, identity: &str) -> Result<(), Failure> {
    let to: SocketAddr = args.to.parse().map_err(|_| {
        usage(format!(
            "--to {:?}: expected IP:PORT with --from-identity",
            args.to
        ))
    })?;
    let config = config(&args.trust_domain, args.baseline);
    let peer = peer(identity, &config)?;
    let manifests = super::read_strict(&args.input)?;
    let snapshot = manifests.snapshot();
    let authorizer = Authorizer::build(&snapshot, config);
    let style = Style::stderr();
    for f in authorizer.report().findings() {
        warn(&format!("{} {f}", style.yellow("warning:")));
    }
    let ip: IpAddr = to.ip();
    let (service, backends, unresolved) = match authorizer.destination(&snapshot, ip, to.port()) {
        Destination::Pod(w) => (None, vec![(w, to.port())], Vec::new()),
        Destination::Service {
            service,
            backends,
            unresolved,
        } => (
            Some(format!("{}/{}", service.0, service.1)),
            backends,
            unresolved,
        ),
        Destination::Unknown => {
            return Err(input(format!(
                "{to} is neither a Pod IP nor a Service IP and port in the input"
            )));
        }
        _ => return Err(input(format!("{to}: an unknown kind of destination"))),
    };
    for u in &unresolved {
        warn(&format!("{} {u}", style.yellow("warning:")));
    }
    if backends.is_empty() {
        return Err(input(format!(
            "{to} is Service {} and leads to no known Pod",
            service.as_deref().unwrap_or("?")
        )));
    }
    let (verdict, reason, destinations) =
        decide_at(&authorizer, peer.as_ref(), service.as_deref(), &backends);
    let answer = Answer {
        verdict,
        reason,
        peer: peer.as_ref().map(Identity::spiffe_uri),
        to: to.to_string(),
        service,
        destinations,
    };
    match args.output.format() {
        Format::Text => {
            emit(&text(&answer, peer.as_ref()));
            Ok(())
        }
        f => print(&answer, f),
    }
}

/// The verdict for `peer` at every Pod and port of `backends` (those of `service`, if the
/// address was a Service's): allowed iff allowed at every one, with the reason in one line and
/// each Pod's explanation.
pub(crate) fn decide_at(
    authorizer: &Authorizer,
    peer: Option<&Identity>,
    service: Option<&str>,
    backends: &[(gamma_authz::WorkloadId, u16)],
) -> (Verdict, String, Vec<Explanation>) {
    let destinations: Vec<Explanation> = backends
        .iter()
        .map(|(w, port)| authorizer.explain(peer, *w, *port))
        .collect();
    let denied: Vec<&Explanation> = destinations
        .iter()
        .filter(|e| e.verdict == Verdict::Deny)
        .collect();
    let verdict = if denied.is_empty() {
        Verdict::Allow
    } else {
        Verdict::Deny
    };
    let reason = match (service, destinations.as_slice(), denied.first()) {
        (None, [one], _) => one.reason(),
        (Some(svc), [one], _) => format!("Service {svc} leads to one Pod: {}", one.reason()),
        (svc, all, None) => format!(
            "allowed at all {} Pods of Service {}",
            all.len(),
            svc.unwrap_or("?")
        ),
        (svc, all, Some(first)) => format!(
            "denied at {} of {} Pods of Service {}; first: {}",
            denied.len(),
            all.len(),
            svc.unwrap_or("?"),
            first.reason()
        ),
    };
    (verdict, reason, destinations)
}

fn text(answer: &Answer, peer: Option<&Identity>) -> String {
    let out = Style::stdout();
    let head = match answer.verdict {
        Verdict::Allow => out.green("allowed"),
        Verdict::Deny => out.red("denied"),
    };
    let mut s = format!("{head}: {}\n", answer.reason);
    match peer {
        None => s.push_str("  peer: unauthenticated\n"),
        Some(p) => {
            s.push_str(&format!("  peer: {}", p.spiffe_uri()));
            s.push_str(&format!(" (Istio {}", p.istio_principal()));
            if let Some(l) = p.linkerd_identity() {
                s.push_str(&format!(", Linkerd {l}"));
            }
            s.push_str(")\n");
        }
    }
    for d in &answer.destinations {
        let v = match d.verdict {
            Verdict::Allow => "allow",
            Verdict::Deny => "deny",
        };
        s.push_str(&format!(
            "  Pod {}/{} port {}: {v}\n",
            d.workload.namespace, d.workload.name, d.port
        ));
        for p in &d.policies {
            let note = if p.invalid {
                " (invalid: allows nothing)"
            } else if p.allows_nothing {
                " (no rules: allows nothing)"
            } else {
                ""
            };
            s.push_str(&format!(
                "    XAuthorizationPolicy {}/{}{note}\n",
                p.policy.namespace, p.policy.name
            ));
            for r in &p.rules {
                match r.failed {
                    None => s.push_str(&format!("      rule {}: matches\n", r.rule)),
                    Some(c) => s.push_str(&format!("      rule {}: {}\n", r.rule, c.describe())),
                }
            }
        }
    }
    s
}

/// `gammactl crd-extension authorization-policy`.
pub fn crd(args: &CrdPrintArgs) -> Result<(), Failure> {
    let crd = authorization_policy_crd()?;
    match args.output.format() {
        Format::Json => print(&crd, Format::Json),
        _ => {
            emit_line(&format!(
                "# XAuthorizationPolicy: a proposal model of {}; no Gateway API release\n\
                 # ships this CRD. Generated by gammactl from gamma-model's JSON Schema.",
                gamma_mesh::model::xauthz::GEP
            ));
            print(&crd, Format::Yaml)
        }
    }
}

/// The CRD: gamma-model's JSON Schema of XAuthorizationPolicy made structural (references
/// inlined, `null` dropped from types, defaults dropped), with the GEP's rules as CEL.
fn authorization_policy_crd() -> Result<Value, Failure> {
    let schema = Value::from(ResourceKind::XAuthorizationPolicy.json_schema());
    let defs = schema
        .get("$defs")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let mut root = structural(&schema, &defs, 0)?;
    // Object metadata is the API server's; status is the controller's (GEP-713 PolicyStatus).
    set(&mut root, "/properties/metadata", json!({"type": "object"}));
    set(&mut root, "/required", json!(["spec"]));
    set(
        &mut root,
        "/properties/spec/required",
        json!(["targetRefs", "action", "enforcementLevel"]),
    );
    set(
        &mut root,
        "/properties/spec/properties/targetRefs/minItems",
        json!(1),
    );
    set(
        &mut root,
        "/properties/spec/properties/targetRefs/maxItems",
        json!(16),
    );
    set(
        &mut root,
        "/properties/spec/properties/targetRefs/x-kubernetes-validations",
        json!([{
            "rule": "!self.exists(t, t.kind == 'Pod' && (t.group == '' || t.group == 'core')) || size(self) == 1",
            "message": "a Pod target (label selector) must be the only targetRef"
        }]),
    );
    let target = "/properties/spec/properties/targetRefs/items";
    set(
        &mut root,
        &format!("{target}/required"),
        json!(["group", "kind"]),
    );
    set(
        &mut root,
        &format!("{target}/x-kubernetes-validations"),
        json!([
            {"rule": "!has(self.selector) || (self.kind == 'Pod' && (self.group == '' || self.group == 'core'))",
             "message": "Selector may only be set when targeting Pods."},
            {"rule": "!(self.kind == 'Pod' && (self.group == '' || self.group == 'core')) || (has(self.selector) && !has(self.name))",
             "message": "a Pod target must have a selector and no name"},
            {"rule": "(self.kind == 'Pod' && (self.group == '' || self.group == 'core')) || has(self.name)",
             "message": "a target other than a Pod must have a name"}
        ]),
    );
    let source = "/properties/spec/properties/rules/items/properties/sources/items";
    set(&mut root, &format!("{source}/required"), json!(["type"]));
    set(
        &mut root,
        &format!("{source}/x-kubernetes-validations"),
        json!([{
            "rule": "self.type == 'SPIFFE' ? (has(self.spiffe) && !has(self.serviceAccount)) : (has(self.serviceAccount) && !has(self.spiffe))",
            "message": "set exactly the member type names: spiffe for SPIFFE, serviceAccount for ServiceAccount"
        }]),
    );
    set(
        &mut root,
        &format!("{source}/properties/spiffe/pattern"),
        json!("^spiffe://[a-z0-9._-]+/[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)*$"),
    );
    set(
        &mut root,
        &format!("{source}/properties/serviceAccount/required"),
        json!(["name"]),
    );
    let ports = "/properties/spec/properties/rules/items/properties/networkAttributes/properties/ports/items";
    set(&mut root, &format!("{ports}/minimum"), json!(1));
    set(&mut root, &format!("{ports}/maximum"), json!(65535));
    let (group, version) = gamma_mesh::model::xauthz::API_VERSION
        .split_once('/')
        .unwrap_or(("gateway.networking.x-k8s.io", "v1alpha1"));
    Ok(json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {
            "name": format!("xauthorizationpolicies.{group}"),
            "annotations": {"gamma-rs.dev/proposal": "GEP-3779"}
        },
        "spec": {
            "group": group,
            "names": {
                "kind": "XAuthorizationPolicy",
                "listKind": "XAuthorizationPolicyList",
                "plural": "xauthorizationpolicies",
                "singular": "xauthorizationpolicy",
                "categories": ["gateway-api"]
            },
            "scope": "Namespaced",
            "versions": [{
                "name": version,
                "served": true,
                "storage": true,
                "subresources": {"status": {}},
                "schema": {"openAPIV3Schema": root}
            }]
        }
    }))
}

/// Sets the member at a JSON pointer whose parent exists.
fn set(root: &mut Value, pointer: &str, value: Value) {
    let (parent, key) = pointer.rsplit_once('/').unwrap_or(("", pointer));
    if let Some(Value::Object(m)) = root.pointer_mut(parent) {
        m.insert(key.to_owned(), value);
    }
}

/// A JSON Schema node as a structural OpenAPI v3 one.
fn structural(node: &Value, defs: &Map<String, Value>, depth: usize) -> Result<Value, Failure> {
    if depth > 32 {
        return Err(input(
            "the XAuthorizationPolicy schema nests too deep (a recursive type?)",
        ));
    }
    let object = node
        .as_object()
        .ok_or_else(|| input("the XAuthorizationPolicy schema has a non-object node"))?;
    let mut out = Map::new();
    for (key, value) in object {
        match key.as_str() {
            "$ref" => {
                let name = value
                    .as_str()
                    .and_then(|r| r.strip_prefix("#/$defs/"))
                    .ok_or_else(|| input(format!("unsupported $ref {value}")))?;
                let def = defs
                    .get(name)
                    .ok_or_else(|| input(format!("no $defs entry {name}")))?;
                if let Value::Object(inner) = structural(def, defs, depth + 1)? {
                    for (k, v) in inner {
                        out.entry(k).or_insert(v);
                    }
                }
            }
            "anyOf" | "oneOf" => {
                let branches: Vec<&Value> = value
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter(|b| b.get("type") != Some(&json!("null")))
                    .collect();
                let [only] = branches.as_slice() else {
                    return Err(input(format!("unsupported {key} with several branches")));
                };
                if let Value::Object(inner) = structural(only, defs, depth + 1)? {
                    for (k, v) in inner {
                        out.entry(k).or_insert(v);
                    }
                }
            }
            "type" => {
                let types: Vec<&str> = match value {
                    Value::String(t) => vec![t.as_str()],
                    Value::Array(l) => l.iter().filter_map(Value::as_str).collect(),
                    _ => Vec::new(),
                };
                let non_null: Vec<&&str> = types.iter().filter(|t| **t != "null").collect();
                let [one] = non_null.as_slice() else {
                    return Err(input(format!("unsupported type {value}")));
                };
                out.insert(key.clone(), json!(one));
            }
            "properties" => {
                let mut props = Map::new();
                for (name, p) in value.as_object().into_iter().flatten() {
                    props.insert(name.clone(), structural(p, defs, depth + 1)?);
                }
                out.insert(key.clone(), Value::Object(props));
            }
            "items" | "additionalProperties" => {
                out.insert(key.clone(), structural(value, defs, depth + 1)?);
            }
            "format" => {
                if matches!(value.as_str(), Some("int32" | "int64" | "date-time")) {
                    out.insert(key.clone(), value.clone());
                }
            }
            "description" | "enum" | "required" | "minimum" | "maximum" | "minItems"
            | "maxItems" | "minLength" | "maxLength" | "pattern" => {
                out.insert(key.clone(), value.clone());
            }
            // Defaults would change meaning (an absent `rules` is not `null`); titles and the
            // dialect have no place in a CRD.
            "default" | "title" | "$schema" | "$defs" | "examples" => {}
            "uniqueItems" => {
                if value == &json!(true) {
                    out.insert("x-kubernetes-list-type".into(), json!("set"));
                }
            }
            other => return Err(input(format!("unsupported JSON Schema keyword {other}"))),
        }
    }
    Ok(Value::Object(out))
}
