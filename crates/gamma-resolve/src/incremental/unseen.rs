//! Route changes the table cannot see: a new version of a route whose every field lowering
//! reads is as it was, and which was and is valid (`docs/incremental.md`, "Changes the table
//! cannot see").
//!
//! Most watch events on a route in a live cluster are of this kind: every status write (the
//! controller's own, read back, and every other controller's), a label or annotation, a
//! `managedFields` entry. The table depends only on what lowering reads (the kind, apiVersion,
//! namespace, name, `creationTimestamp` and `spec`) and on the route's validity, which also
//! covers its labels, annotations and status (the API server validates the status
//! subresource with the same schema: a status past 32 parents makes the object one the
//! server would refuse, and the table leaves such a route out). When both are as they were,
//! the updated table is the table itself, shared. A route given as its own previous (the same
//! object, or an equal one) is rebuilt as before: that is how an embedder applies new
//! `BuildOptions::include` entries of a route (an ownership change).

use std::sync::Arc;

use gamma_model::AnyResource;
use gamma_model::Validate;
use gamma_model::meta::ObjectMeta;

use crate::lower::{Lowering, kept_verdict};
use crate::table::{BuildOptions, Part, RouteTable};

use super::scope::Changed;

/// Whether `changed` (a route: its previous and current objects) leaves every table as it
/// was: the same fields for lowering, valid before and after under `options`.
pub(super) fn unseen(
    table: &RouteTable,
    snapshot: &gamma_model::Snapshot,
    options: &BuildOptions,
    changed: &Changed<'_>,
) -> bool {
    let (Some(previous), Some(current)) = (changed.previous, changed.current) else {
        return false;
    };
    if !same_for_lowering(previous, current) {
        return false;
    }
    // the route as its own previous (or an equal copy): a request to rebuild it as it is (an
    // ownership change, new `BuildOptions::include` entries: `RouteTable::update`)
    if std::ptr::eq(previous, &**current) || same_beyond_lowering(previous, current) {
        return false;
    }
    let opts = &options.lowering();
    // the current verdict is the snapshot's (kept with the object: a build asks for it too)
    let Some((_, true)) = snapshot.validated_route(changed.key, opts) else {
        return false;
    };
    was_valid(&table.parts, opts, previous)
}

/// Whether `previous` was valid: the verdict its kept lowered form carries when a part keeps
/// one (the table was built or updated from that very object), validated otherwise.
fn was_valid(parts: &[Arc<Part>], opts: &Lowering, previous: &AnyResource) -> bool {
    let kept = parts.iter().map(|p| &p.lowered);
    match kept_verdict(kept, &opts.as_bundles(), previous) {
        Some(valid) => valid,
        None => previous
            .validate_with(&opts.for_kind(previous.kind()))
            .is_ok(),
    }
}

/// `$body` over two routes of the same kind (`$x`, `$y`: the typed objects; every route kind
/// has the same fields), `false` for two different kinds or non-routes.
macro_rules! same_kind {
    ($a:expr, $b:expr, |$x:ident, $y:ident| $body:expr) => {
        match ($a, $b) {
            (AnyResource::HttpRoute($x), AnyResource::HttpRoute($y)) => $body,
            (AnyResource::GrpcRoute($x), AnyResource::GrpcRoute($y)) => $body,
            (AnyResource::TlsRoute($x), AnyResource::TlsRoute($y)) => $body,
            (AnyResource::TcpRoute($x), AnyResource::TcpRoute($y)) => $body,
            (AnyResource::UdpRoute($x), AnyResource::UdpRoute($y)) => $body,
            _ => false,
        }
    };
}

/// The same route for lowering: kind, apiVersion, namespace, name, `creationTimestamp`
/// (precedence: the oldest route wins) and `spec` equal.
pub(super) fn same_for_lowering(a: &AnyResource, b: &AnyResource) -> bool {
    same_kind!(a, b, |a, b| a.api_version == b.api_version
        && same_meta(&a.metadata, &b.metadata)
        && a.spec == b.spec)
}

/// Of two routes [`same_for_lowering`], whether the rest is equal too (the whole objects are).
fn same_beyond_lowering(a: &AnyResource, b: &AnyResource) -> bool {
    same_kind!(a, b, |a, b| a.kind == b.kind
        && a.metadata == b.metadata
        && a.status == b.status)
}

/// The metadata lowering reads. Two different `generation`s say the spec changed (the API
/// server bumps it on every spec change), so the spec is not compared: only conservative, as
/// a changed route is rebuilt whatever its spec.
fn same_meta(a: &ObjectMeta, b: &ObjectMeta) -> bool {
    let generations = a.generation.zip(b.generation);
    generations.is_none_or(|(x, y)| x == y)
        && a.name == b.name
        && a.namespace_or_default() == b.namespace_or_default()
        && a.creation_timestamp == b.creation_timestamp
}
