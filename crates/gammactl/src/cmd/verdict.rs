//! `--from-identity` on `resolve --follow` and `explain --follow`: the followed request ends
//! with the XAuthorizationPolicy (GEP-3779, proposal) verdict where it is delivered, so one
//! command says where a request goes and whether it is allowed there. The verdict is taken as
//! `authorize --from-identity` takes it, at every Pod behind the backend Service the chain ends
//! at (its EndpointSlices, or its selector and a numeric `targetPort`), on the Pod's port.

use gamma_authz::{Authorizer, Destination, Explanation, Identity, Verdict};
use gamma_resolve::{Trace, TraceEnd};
use serde::Serialize;

use crate::cli::VerdictArgs;
use crate::engine::{Engine, Prepared};
use crate::failure::Failure;
use crate::output::warn;
use crate::style::Style;

/// The authorization verdict at the end of a followed request (`authorization` in `-o json`).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Authorization {
    /// Whether a verdict was reached: `false` without `--from-identity`, or when the request
    /// reaches no Pod in the input (answered on the way, a loop, a backend without Pods).
    evaluated: bool,
    /// `allow` or `deny`, when evaluated.
    #[serde(skip_serializing_if = "Option::is_none")]
    verdict: Option<Verdict>,
    /// Why, in one line (why not, when not evaluated).
    reason: String,
    /// The peer as a SPIFFE URI; absent when unauthenticated or not given.
    #[serde(skip_serializing_if = "Option::is_none")]
    peer: Option<String>,
    /// Where the verdict is taken: the backend Service and port (`namespace/name:port`), or the
    /// address of a request no route takes.
    #[serde(skip_serializing_if = "Option::is_none")]
    at: Option<String>,
    /// One decision per Pod (and its port) the request may reach.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    destinations: Vec<Explanation>,
}

impl Authorization {
    fn not_evaluated(reason: String, peer: Option<&Identity>, at: Option<String>) -> Self {
        Authorization {
            evaluated: false,
            verdict: None,
            reason,
            peer: peer.map(Identity::spiffe_uri),
            at,
            destinations: Vec::new(),
        }
    }

    /// The text form: one line, then one per Pod.
    pub fn render(&self, style: &Style) -> String {
        let mut s = match self.verdict {
            None => format!("authorization: {}\n", self.reason),
            Some(Verdict::Allow) => {
                format!(
                    "authorization: {}: {}\n",
                    style.green("allowed"),
                    self.reason
                )
            }
            Some(Verdict::Deny) => {
                format!("authorization: {}: {}\n", style.red("denied"), self.reason)
            }
        };
        for d in &self.destinations {
            let v = match d.verdict {
                Verdict::Allow => "allow",
                Verdict::Deny => "deny",
            };
            s.push_str(&format!(
                "  Pod {}/{} port {}: {v}\n",
                d.workload.namespace, d.workload.name, d.port
            ));
        }
        s
    }
}

/// The verdict at the end of `trace` (of `prepared`) for `--from-identity`, if given.
pub fn at_end(
    engine: &Engine,
    prepared: &Prepared,
    trace: &Trace<'_>,
    args: &VerdictArgs,
) -> Result<Authorization, Failure> {
    let Some(identity) = &args.from_identity else {
        return Ok(Authorization::not_evaluated(
            "not evaluated (give --from-identity ID for the XAuthorizationPolicy verdict)".into(),
            None,
            None,
        ));
    };
    let config = super::authorize_gep::config(&args.trust_domain, args.baseline);
    let peer = super::authorize_gep::peer(identity, &config)?;
    let snapshot = &engine.snapshot;
    let (at, destination) = match &trace.end {
        TraceEnd::Delivered { backend } => match backend.port {
            Some(port) if backend.group.is_empty() && backend.kind == "Service" => (
                format!("Service {}/{}:{port}", backend.namespace, backend.name),
                Some((backend.namespace, backend.name, port)),
            ),
            _ => {
                return Ok(Authorization::not_evaluated(
                    format!(
                        "not evaluated: the request is delivered to {backend}, not to a Service port"
                    ),
                    peer.as_ref(),
                    None,
                ));
            }
        },
        // No route takes the request: it reaches the address as plain Kubernetes would.
        TraceEnd::Passthrough => (format!("{}:{}", prepared.address, prepared.port), None),
        other => {
            return Ok(Authorization::not_evaluated(
                format!("not evaluated: the request reaches no workload ({other})"),
                peer.as_ref(),
                None,
            ));
        }
    };
    let authorizer = Authorizer::build(snapshot, config);
    let style = Style::stderr();
    for f in authorizer.report().findings() {
        warn(&format!("{} {f}", style.yellow("warning:")));
    }
    let found = match destination {
        Some((ns, name, port)) => authorizer.service_destination(snapshot, ns, name, port),
        None => authorizer.destination(snapshot, prepared.address, prepared.port),
    };
    let (service, backends) = match found {
        Destination::Pod(w) => (None, vec![(w, prepared.port)]),
        Destination::Service {
            service,
            backends,
            unresolved,
        } => {
            for u in &unresolved {
                warn(&format!("{} {u}", style.yellow("warning:")));
            }
            (Some(format!("{}/{}", service.0, service.1)), backends)
        }
        _ => (None, Vec::new()),
    };
    if backends.is_empty() {
        return Ok(Authorization::not_evaluated(
            format!("not evaluated: {at} leads to no Pod in the input"),
            peer.as_ref(),
            Some(at),
        ));
    }
    let (verdict, reason, destinations) =
        super::authorize_gep::decide_at(&authorizer, peer.as_ref(), service.as_deref(), &backends);
    Ok(Authorization {
        evaluated: true,
        verdict: Some(verdict),
        reason,
        peer: peer.as_ref().map(Identity::spiffe_uri),
        at: Some(at),
        destinations,
    })
}
