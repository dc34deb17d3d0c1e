//! `gammactl authorize`: SMI TrafficTarget access control for one request, through
//! gamma-smi's Authorizer; with `--from-identity`, XAuthorizationPolicies through gamma-authz
//! (`authorize_gep`).

use gamma_mesh::smi::{AccessRequest, Authorizer, ServiceAccountRef};
use serde::Serialize;

use crate::cli::{AccessProtocol, AuthorizeArgs, Format};
use crate::failure::{Failure, usage};
use crate::output::{emit_line, print, warn};
use crate::style::Style;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Answer<'a> {
    allowed: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    by: Option<&'a gamma_mesh::model::ObjectKey>,
    explanation: &'a str,
}

pub fn run(args: &AuthorizeArgs) -> Result<(), Failure> {
    if let Some(identity) = &args.from_identity {
        return super::authorize_gep::run(args, identity);
    }
    let source: ServiceAccountRef = args
        .from
        .as_deref()
        .unwrap_or_default()
        .parse()
        .map_err(|e| usage(format!("--from: {e}")))?;
    let destination: ServiceAccountRef =
        args.to.parse().map_err(|e| usage(format!("--to: {e}")))?;
    let (method, path) =
        crate::request::method_and_path(args.method.as_deref(), args.path.as_deref())
            .map_err(usage)?;
    let protocol = args
        .protocol
        .unwrap_or(if method.is_some() || path.is_some() {
            AccessProtocol::Http
        } else {
            AccessProtocol::Tcp
        });
    let port = args.port.map(i32::from);
    let request = match protocol {
        AccessProtocol::Http => {
            let Some(path) = path else {
                return Err(usage(
                    "an HTTP request needs a PATH (and a METHOD, default GET)",
                ));
            };
            let method = method.unwrap_or_else(|| "GET".to_owned());
            if let Some(w) = crate::request::method_case_warning(&method) {
                warn(&format!("{} {w}", Style::stderr().yellow("warning:")));
            }
            let mut r = AccessRequest::http(method, path);
            if let Some(p) = port {
                r = r.on_port(p);
            }
            for h in &args.headers {
                let (name, value) = h
                    .split_once('=')
                    .ok_or_else(|| usage(format!("--header {h:?}: expected NAME=VALUE")))?;
                r = r.header(name, value);
            }
            r
        }
        AccessProtocol::Tcp | AccessProtocol::Udp => {
            let p = port.ok_or_else(|| usage("tcp and udp requests need --port"))?;
            if method.is_some() || path.is_some() {
                return Err(usage("METHOD PATH only apply to --protocol http"));
            }
            if protocol == AccessProtocol::Tcp {
                AccessRequest::tcp(p)
            } else {
                AccessRequest::udp(p)
            }
        }
    };
    let manifests = super::read_strict(&args.input)?;
    let authorizer = Authorizer::build(&manifests.snapshot());
    let style = Style::stderr();
    for f in authorizer.report().findings() {
        warn(&format!("{} {f}", style.yellow("warning:")));
    }
    let verdict = authorizer.authorize(&source, &destination, &request);
    let answer = Answer {
        allowed: verdict.allowed,
        by: verdict.by.as_ref(),
        explanation: &verdict.explanation,
    };
    match args.output.format() {
        Format::Text => {
            let out = Style::stdout();
            let head = if verdict.allowed {
                out.green("allowed")
            } else {
                out.red("denied")
            };
            emit_line(&format!("{head}: {}", verdict.explanation));
            Ok(())
        }
        f => print(&answer, f),
    }
}
