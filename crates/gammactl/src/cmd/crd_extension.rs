//! `gammactl crd-extension controllers`: the JSON patches that declare `parentRefs[].controllers`
//! in the route CRDs (gamma-kube `crd_extension`), printed for a release and channel, or applied
//! to a cluster.

use gamma_kube::crd_extension::{
    self, Applied, Availability, CONTROLLERS, CrdState, Direction, EXTENSION_ANNOTATION, PatchOp,
};
use gamma_mesh::model::validate::Bundle;
use serde::Serialize;

use crate::cli::{CrdExtensionArgs, Format};
use crate::failure::{Failure, input};
use crate::output::{emit, emit_line, print};

/// One CRD's patch.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct CrdPatch {
    /// The CRD's name.
    crd: String,
    /// RFC 6902 operations (`kubectl patch crd NAME --type=json -p PATCH`); empty: nothing to do.
    patch: Vec<PatchOp>,
}

/// The printed form: a release's route CRDs, no cluster read.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Printed {
    extension: &'static str,
    direction: &'static str,
    gateway_api: &'static str,
    channel: &'static str,
    patches: Vec<CrdPatch>,
}

/// What was done to a cluster.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct ClusterReport {
    extension: &'static str,
    direction: &'static str,
    dry_run: bool,
    crds: Vec<Applied>,
    /// Whether the route CRDs declare the field now (as applied; as before with --dry-run).
    parent_ref_controllers: Availability,
}

fn direction_name(direction: Direction) -> &'static str {
    match direction {
        Direction::Install => "install",
        Direction::Remove => "remove",
    }
}

/// Runs `gammactl crd-extension controllers`.
pub fn controllers(args: &CrdExtensionArgs) -> Result<(), Failure> {
    let direction = if args.remove {
        Direction::Remove
    } else {
        Direction::Install
    };
    if args.cluster_wanted() {
        on_cluster(args, direction)
    } else {
        printed(args, direction)
    }
}

fn printed(args: &CrdExtensionArgs, direction: Direction) -> Result<(), Failure> {
    let bundle = Bundle::new(args.bundle_version, args.channel.channel());
    let mut patches = Vec::new();
    for crd in crd_extension::upstream_crds(bundle) {
        // The upstream CRDs lack the field: the inverse is the one for CRDs that have it.
        let crd = match direction {
            Direction::Install => crd,
            Direction::Remove => crd.after(Direction::Install),
        };
        patches.push(CrdPatch {
            patch: patch_of(&crd, direction)?,
            crd: crd.name,
        });
    }
    let report = Printed {
        extension: CONTROLLERS,
        direction: direction_name(direction),
        gateway_api: bundle.release.as_str(),
        channel: bundle.channel.as_str(),
        patches,
    };
    match args.output.format() {
        Format::Text => {
            emit(&header(&report, direction));
            for p in &report.patches {
                emit_line(&kubectl_patch(&p.crd, &p.patch)?);
            }
            Ok(())
        }
        format => print(&report, format),
    }
}

fn patch_of(crd: &CrdState, direction: Direction) -> Result<Vec<PatchOp>, Failure> {
    crd.patch(direction)
        .map_err(|e| input(format!("cannot make the patch of {}: {e}", crd.name)))
}

/// The comment lines that open the printed script.
fn header(report: &Printed, direction: Direction) -> String {
    let what = match direction {
        Direction::Install => format!(
            "# gamma-rs CRD extension `controllers` for the Gateway API {} CRDs ({} channel):\n\
             # declares parentRefs[].controllers in every served version of every route CRD\n\
             # (spec.parentRefs[] and status.parents[].parentRef), with the schema gamma-rs\n\
             # validates, and annotates each CRD {EXTENSION_ANNOTATION}: {CONTROLLERS}.\n\
             # Applying it twice changes nothing (`add` replaces a member that exists).\n\
             # The inverse: gammactl crd-extension controllers --remove.\n",
            report.gateway_api, report.channel
        ),
        Direction::Remove => format!(
            "# Removes the gamma-rs CRD extension `controllers` from the Gateway API {} CRDs\n\
             # ({} channel): parentRefs[].controllers and the annotation {EXTENSION_ANNOTATION}.\n\
             # A CRD that lacks either (reinstalled since) fails its patch as a whole; with\n\
             # --kubeconfig, gammactl removes only what is there.\n",
            report.gateway_api, report.channel
        ),
    };
    format!(
        "{what}# Each patch is atomic: its `test`s fail it as a whole on a CRD whose versions differ.\n"
    )
}

/// `kubectl patch crd NAME --type=json -p 'PATCH'`, the patch quoted for a POSIX shell.
fn kubectl_patch(crd: &str, patch: &[PatchOp]) -> Result<String, Failure> {
    let json = serde_json::to_string(patch)
        .map_err(|e| input(format!("cannot encode the patch of {crd}: {e}")))?;
    Ok(format!(
        "kubectl patch crd {crd} --type=json -p '{}'",
        json.replace('\'', r"'\''")
    ))
}

fn on_cluster(args: &CrdExtensionArgs, direction: Direction) -> Result<(), Failure> {
    let (applied, before) = crate::cluster::crd_extension(args, direction)?;
    if applied.is_empty() {
        return Err(input(
            "the cluster has no Gateway API route CRD (HTTPRoute, GRPCRoute, TLSRoute, TCPRoute, UDPRoute)",
        ));
    }
    let report = ClusterReport {
        extension: CONTROLLERS,
        direction: direction_name(direction),
        dry_run: args.dry_run,
        parent_ref_controllers: if args.dry_run {
            before
        } else {
            Availability::of(applied.iter().map(|a| &a.state))
        },
        crds: applied,
    };
    match args.output.format() {
        Format::Text => {
            for a in &report.crds {
                emit_line(&cluster_line(a, direction, args.dry_run));
                if args.dry_run && !a.patch.is_empty() {
                    emit_line(&format!("  {}", kubectl_patch(&a.crd, &a.patch)?));
                }
            }
            emit_line(&report.parent_ref_controllers.to_string());
            Ok(())
        }
        format => print(&report, format),
    }
}

/// One CRD's outcome, for people.
fn cluster_line(a: &Applied, direction: Direction, dry_run: bool) -> String {
    let served: Vec<&str> = a
        .state
        .versions
        .iter()
        .filter(|v| v.served)
        .map(|v| v.name.as_str())
        .collect();
    let versions = served.join(", ");
    let (declare, does_not) = if served.len() == 1 {
        ("declares", "does not declare")
    } else {
        ("declare", "do not declare")
    };
    match (a.patch.is_empty(), direction, dry_run) {
        (true, Direction::Install, _) => format!(
            "{}: unchanged: {versions} already {declare} parentRefs[].controllers",
            a.crd
        ),
        (true, Direction::Remove, _) => format!(
            "{}: unchanged: {versions} {does_not} parentRefs[].controllers",
            a.crd
        ),
        (false, Direction::Install, false) => format!(
            "{}: patched: {versions} {declare} parentRefs[].controllers",
            a.crd
        ),
        (false, Direction::Remove, false) => format!(
            "{}: patched: parentRefs[].controllers removed from {versions}",
            a.crd
        ),
        (false, _, true) => format!(
            "{}: would be patched (server-side dry run admitted it; nothing stored)",
            a.crd
        ),
    }
}
