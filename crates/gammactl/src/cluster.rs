//! Reading the objects from a live cluster (`--kubeconfig`, `--context`, `--cluster`) in place
//! of `-f`: one list of every kind the engines read, through gamma-kube, no watch. Each object
//! becomes one JSON input, so every command answers for a cluster exactly as for the same
//! objects given as files.
//!
//! The tokio runtime exists only here: a run with `-f` never starts one. Built without the
//! feature `kube`, gammactl has no cluster client: naming a cluster is a usage error that says
//! so.

use gamma_kube::crd_extension::{Applied, Availability, Direction};

use crate::cli::{CrdExtensionArgs, InputArgs};
use crate::failure::Failure;
#[cfg(feature = "kube")]
use crate::failure::input;
use crate::input::Source;

/// Whether `args` name a cluster rather than files.
pub fn wanted(args: &InputArgs) -> bool {
    args.kubeconfig.is_some() || args.context.is_some() || args.cluster
}

/// What a cluster read gives besides its objects.
pub struct ClusterFacts {
    /// Whether its route CRDs declare `parentRefs[].controllers` (the gamma-rs CRD extension).
    pub parent_ref_controllers: Availability,
    /// The Gateway API bundle its CRDs name (as gamma-kube's runtime chooses it); `None`
    /// without any Gateway API CRD.
    pub bundle: Option<gamma_mesh::model::validate::Bundle>,
    /// The bundle each kind is judged by: its own CRD's, and [`ClusterFacts::bundle`] for
    /// kinds without one; `None` without any Gateway API CRD.
    pub kinds: Option<gamma_mesh::model::validate::KindBundles>,
    /// What to say about it: CRDs that name no bundle gamma-rs knows (judged as the newest
    /// release), or another bundle than the default.
    pub notes: Vec<String>,
}

/// Every object of the cluster `args` name, one [`Source`] each, named
/// `cluster:<Kind>/<namespace>/<name>` (`cluster:<Kind>/<name>` when cluster-scoped), and what
/// its CRDs say ([`ClusterFacts`]).
#[cfg(feature = "kube")]
pub fn read(args: &InputArgs) -> Result<(Vec<Source>, ClusterFacts), Failure> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| input(format!("cannot start the cluster client: {e}")))?;
    let listed = runtime.block_on(async {
        let client = gamma_kube::list::connect(args.kubeconfig.as_deref(), args.context.as_deref())
            .await
            .map_err(|e| input(format!("cannot reach the cluster: {e}")))?;
        gamma_kube::list::list_all(&client)
            .await
            .map_err(|e| input(format!("cannot list the cluster's objects: {e}")))
    })?;
    let mut notes: Vec<String> = listed
        .unannotated
        .iter()
        .map(|(crd, problem)| {
            format!(
                "CRD {crd} names no Gateway API bundle gamma-rs knows ({problem}): judged as the \
                 newest release, {}",
                gamma_mesh::model::validate::Release::NEWEST
            )
        })
        .collect();
    if let Some(choice) = &listed.bundle {
        for (crd, other) in &choice.disagreeing {
            notes.push(format!(
                "CRD {crd} is of {other}, not of {} (read from {}): its kind is judged under \
                 the former, every kind under its own CRD's",
                choice.bundle, choice.from
            ));
        }
    }
    Ok((
        listed.objects.iter().map(source).collect(),
        ClusterFacts {
            parent_ref_controllers: listed.parent_ref_controllers,
            bundle: listed.bundle.map(|c| c.bundle),
            kinds: listed.kind_bundles,
            notes,
        },
    ))
}

/// Without the feature `kube`: a usage error naming it.
#[cfg(not(feature = "kube"))]
pub fn read(_: &InputArgs) -> Result<(Vec<Source>, ClusterFacts), Failure> {
    Err(without_kube())
}

/// `crd-extension --kubeconfig`: the route CRDs' availability of the field before, and what
/// [`gamma_kube::crd_extension::apply`] did to each.
#[cfg(feature = "kube")]
pub fn crd_extension(
    args: &CrdExtensionArgs,
    direction: Direction,
) -> Result<(Vec<Applied>, Availability), Failure> {
    use gamma_kube::crd_extension;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| input(format!("cannot start the cluster client: {e}")))?;
    runtime.block_on(async {
        let client = gamma_kube::list::connect(args.kubeconfig.as_deref(), args.context.as_deref())
            .await
            .map_err(|e| input(format!("cannot reach the cluster: {e}")))?;
        let before = Availability::of(
            &crd_extension::read(&client)
                .await
                .map_err(|e| input(format!("cannot read the route CRDs: {e}")))?,
        );
        let applied = crd_extension::apply(&client, direction, args.dry_run)
            .await
            .map_err(|e| input(format!("cannot patch the route CRDs: {e}")))?;
        Ok::<_, Failure>((applied, before))
    })
}

/// Without the feature `kube`: a usage error naming it.
#[cfg(not(feature = "kube"))]
pub fn crd_extension(
    _: &CrdExtensionArgs,
    _: Direction,
) -> Result<(Vec<Applied>, Availability), Failure> {
    Err(without_kube())
}

/// Why this build cannot name a cluster (exit 2, a usage error: the build, not the input).
#[cfg(not(feature = "kube"))]
fn without_kube() -> Failure {
    crate::failure::usage(
        "--kubeconfig, --context and --cluster need gammactl's cargo feature `kube`, which this \
         build lacks (built with --no-default-features: it reads files only); \
         `cargo install gammactl` enables it by default, or build with `--features kube`",
    )
}

#[cfg(feature = "kube")]
fn source(object: &serde_json::Value) -> Source {
    let text = |v: &serde_json::Value| v.as_str().unwrap_or("").to_owned();
    let kind = text(&object["kind"]);
    let name = text(&object["metadata"]["name"]);
    let name = match object["metadata"]["namespace"].as_str() {
        Some(ns) => format!("cluster:{kind}/{ns}/{name}"),
        None => format!("cluster:{kind}/{name}"),
    };
    Source {
        name,
        // Serialising a JSON value cannot fail.
        text: serde_json::to_string_pretty(object).unwrap_or_default(),
    }
}

#[cfg(all(test, feature = "kube"))]
mod tests {
    use super::*;

    #[test]
    fn sources_are_named_after_the_object() {
        let s = source(&serde_json::json!({
            "apiVersion": "v1", "kind": "Service",
            "metadata": {"name": "web", "namespace": "shop"}
        }));
        assert_eq!(s.name, "cluster:Service/shop/web");
        let s = source(&serde_json::json!({
            "apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop"}
        }));
        assert_eq!(s.name, "cluster:Namespace/shop");
        assert!(s.text.contains("\"kind\": \"Namespace\""));
    }
}
