//! The options of [`RouteTable::build`](crate::RouteTable::build).

use std::collections::{BTreeMap, BTreeSet};

use gamma_model::validate::{Bundle, KindBundles};
use gamma_model::{ResourceKind, RouteKind};

/// How mesh routes treat `spec.hostnames` (GEP-1294 hostnames field).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum MeshHostnames {
    /// Ignore hostnames on Service-parented routes (upstream GEP-1294; the default).
    #[default]
    Ignore,
    /// A route with hostnames only matches requests whose Host matches one of them (the
    /// alternative the project seeds describe). Routes without hostnames match any Host.
    MatchHostHeader,
}

/// Whether mesh routes need a ReferenceGrant for cross-namespace backendRefs (GEP-1294 namespace
/// boundaries).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum MeshReferenceGrants {
    /// Mesh routes may reference backends in any namespace (upstream mesh behaviour; default).
    #[default]
    NotRequired,
    /// Mesh routes need a ReferenceGrant like Gateway routes.
    Enforce,
}

/// What to do with `ExtensionRef` filters (Gateway API HTTPRouteRule.filters: never skip one
/// silently).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ExtensionRefs {
    /// The engine cannot apply them: matching requests get 500 and the route reports
    /// `ResolvedRefs=False, InvalidKind` (default).
    #[default]
    Reject,
    /// Pass them through in [`crate::Forward::extensions`] for the embedder to apply.
    PassThrough,
}

/// Which addresses a Service's mesh routes bind to.
///
/// Upstream binds mesh routes to a Service's cluster IPs only (GEP-1294: the Service
/// "frontend"), and a headless Service (`clusterIP: None`) has none, so it is never a parent.
/// [`MeshBinding::Workloads`] is a policy **beyond the Gateway API spec**, for meshes whose
/// clients address workloads directly (headless Services, StatefulSets): see
/// `docs/workloads.md`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum MeshBinding {
    /// Cluster IPs only (upstream GEP-1294; the default): a request to a pod IP passes
    /// through, and a route whose parent is a headless Service is not accepted
    /// (`NoMatchingParent`).
    #[default]
    ClusterIps,
    /// Also bind the routes of a **headless** Service to the addresses of its ready
    /// endpoints (EndpointSlices labelled `kubernetes.io/service-name`, every address family;
    /// `conditions.ready` unset counts as ready), on each Service port's `targetPort`. A
    /// request to such an address and port resolves with the Service's routes, as one to a
    /// cluster IP would. An address and port that is a ready endpoint of several headless
    /// Services with routes is a conflict: it binds none of them (requests get
    /// [`crate::RespondReason::WorkloadConflict`]) and their routes' `Accepted` condition
    /// says so. Endpoints of Services with a cluster IP stay unbound (pass through).
    Workloads,
}

/// How routes attached to one listener rank when their listener∩route hostnames are equal
/// (Gateway API HTTPRoute, GRPCRoute and TLSRoute `hostnames`; feature
/// `GatewayRouteHostnameIntersectionPrecedence`, Gateway API v1.7).
///
/// On a listener `abc.example.com`, an HTTPRoute for `*.example.com` and one for
/// `abc.example.com` both yield `abc.example.com`. Up to v1.6 they tie on the hostname and
/// the rest of the precedence (path, method, ..., then age) decides; from v1.7 the route's own
/// hostname is compared next, so `abc.example.com` wins whatever the ages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum HostnamePrecedence {
    /// Only the listener∩route intersection ranks (Gateway API up to v1.6).
    Intersection,
    /// The intersection, then the route's own hostname that yielded it: characters of a
    /// non-wildcard hostname, then characters (Gateway API v1.7).
    RouteHostname,
}

impl HostnamePrecedence {
    /// The rule a release specifies: [`HostnamePrecedence::RouteHostname`] from v1.7.
    pub fn of_release(release: gamma_model::validate::Release) -> Self {
        if release >= gamma_model::validate::Release::V1_7 {
            HostnamePrecedence::RouteHostname
        } else {
            HostnamePrecedence::Intersection
        }
    }
}

/// One (route, parentRef) pair, identifying what an embedder owns.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RouteParentKey {
    /// Route kind.
    pub kind: RouteKind,
    /// Route namespace.
    pub namespace: String,
    /// Route name.
    pub name: String,
    /// Index into `spec.parentRefs`.
    pub parent_index: usize,
}

/// Options of [`RouteTable::build`](crate::RouteTable::build).
///
/// The hash seed stays out of `Debug` output (logs):
///
/// ```
/// # use gamma_resolve::BuildOptions;
/// let shown = format!("{:?}", BuildOptions::default().with_hash_seed(0x5eed_1234_5678));
/// assert!(!shown.contains(&0x5eed_1234_5678u64.to_string()) && !shown.contains("5eed"));
/// ```
///
/// ```
/// use std::hash::{BuildHasher, RandomState};
/// use gamma_resolve::{BuildOptions, MeshHostnames};
///
/// // a long-running controller keys the table's hashes with a random seed
/// let seed = RandomState::new().hash_one("gamma-resolve");
/// let options = BuildOptions::default()
///     .with_mesh_hostnames(MeshHostnames::MatchHostHeader)
///     .with_hash_seed(seed);
/// assert_eq!(options.hash_seed, seed);
/// ```
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct BuildOptions {
    /// The (route, parent) pairs to include; `None` includes every pair.
    pub include: Option<BTreeSet<RouteParentKey>>,
    /// Hostname policy for mesh routes.
    pub mesh_hostnames: MeshHostnames,
    /// ReferenceGrant policy for mesh routes.
    pub mesh_reference_grants: MeshReferenceGrants,
    /// ExtensionRef policy.
    pub extension_refs: ExtensionRefs,
    /// Seed of the table's hashes of route-chosen keys (paths, hostnames, gRPC names, the
    /// names the build looks up). Decisions, explanations and conditions never depend on it;
    /// it only decides where keys land. A route author who knows the seed could choose paths
    /// that collide and slow lookups on every Service's large path index (bounded, never
    /// wrong); one who does not, cannot. Long-running embedders (controllers, proxies)
    /// should pass a random value per process, e.g. `RandomState::new().hash_one(..)` from
    /// `std::hash`; the core reads no randomness itself. Default 0, a fixed seed (fine for
    /// one-shot tools). Not printed by `Debug`.
    pub hash_seed: u64,
    /// Non-standard compatibility policy: read a parentRef `group: core` as the core group
    /// `""`, as Linkerd does. The Gateway API says the core group is `""`
    /// ([ParentReference.group](https://gateway-api.sigs.k8s.io/reference/spec/#parentreference)),
    /// so by default (`false`) such a parent is not a Service and its condition says so.
    pub core_group_alias: bool,
    /// The release channel whose CRD rules [`RouteTable::build`](crate::RouteTable::build) validates routes against
    /// (default standard); a route invalid under it is left out and says so
    /// ([`RouteTable::left_out_at`](crate::RouteTable::left_out_at)).
    pub channel: gamma_model::validate::Channel,
    /// The Gateway API release whose CRD rules routes are validated against (default: the
    /// newest), with [`BuildOptions::channel`]: the bundle the cluster runs.
    pub release: gamma_model::validate::Release,
    /// Which addresses mesh routes bind to (default: cluster IPs only, as upstream).
    pub mesh_binding: MeshBinding,
    /// Keep every route's lowered form in the table (with the stored object it was lowered
    /// from), for [`RouteTable::update`](crate::RouteTable::update) and
    /// [`RouteTable::build_reusing`](crate::RouteTable::build_reusing): an update or a later
    /// build then never lowers again a route whose object did not change, whichever route
    /// changes (`docs/incremental.md`, "Lowered routes kept"). Costs memory: about 150
    /// bytes more per rule for typical mesh HTTPRoutes, where the compiled table alone takes
    /// about 200 (benches/records/builds-from-a-snapshot.md, "thirteenth look"; the stored
    /// objects are the snapshot's, shared, and the rules of a plain HTTPRoute are read from
    /// them, not kept lowered). Default `false`, for data planes that only resolve; an
    /// embedder that updates its table (a controller's incremental reconcile) turns it on.
    /// Decisions, explanations and conditions never depend on it.
    pub keep_lowered_routes: bool,
    /// How routes with equal listener∩route hostnames rank; `None` (the default) follows
    /// the release of each route's kind ([`HostnamePrecedence::of_release`],
    /// [`BuildOptions::hostname_precedence_of`]).
    pub hostname_precedence: Option<HostnamePrecedence>,
    /// The `(group, kind)`s of Gateway `spec.infrastructure.parametersRef` the embedder
    /// supports and resolves itself. A Gateway whose reference names a kind not listed is
    /// `Accepted=False` with reason `InvalidParameters` ("refers to an unsupported kind",
    /// GatewayInfrastructure.parametersRef) and is left out. `None` (the default): no kind is
    /// refused for its kind alone. Whatever this says, a reference to a core `ConfigMap` (the
    /// one kind the snapshot holds) that does not exist in the Gateway's namespace is
    /// `InvalidParameters` ("If the referent cannot be found"); gamma-rs never reads its data.
    pub gateway_parameter_kinds: Option<Vec<(String, String)>>,
    /// Kinds judged by another bundle than [`BuildOptions::release`] and
    /// [`BuildOptions::channel`], each under its own CRD's (empty, the default: every kind by
    /// those two). Set with [`BuildOptions::with_bundles`]; route validation, the Gateway's
    /// and ListenerSet's, and the hostname precedence of a route follow its kind's.
    pub kinds: BTreeMap<ResourceKind, Bundle>,
}

impl std::fmt::Debug for BuildOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // the seed is a secret of the embedder: kept out of logs
        f.debug_struct("BuildOptions")
            .field("include", &self.include)
            .field("mesh_hostnames", &self.mesh_hostnames)
            .field("mesh_reference_grants", &self.mesh_reference_grants)
            .field("extension_refs", &self.extension_refs)
            .field("hash_seed", &"<hidden>")
            .field("core_group_alias", &self.core_group_alias)
            .field("channel", &self.channel)
            .field("release", &self.release)
            .field("mesh_binding", &self.mesh_binding)
            .field("keep_lowered_routes", &self.keep_lowered_routes)
            .field("hostname_precedence", &self.hostname_precedence)
            .field("gateway_parameter_kinds", &self.gateway_parameter_kinds)
            .field("kinds", &self.kinds)
            .finish()
    }
}

impl BuildOptions {
    /// Sets [`BuildOptions::release`] and [`BuildOptions::channel`] from the bundle a cluster
    /// runs, for every kind (no [`BuildOptions::kinds`]).
    pub fn with_bundle(mut self, bundle: Bundle) -> Self {
        self.release = bundle.release;
        self.channel = bundle.channel;
        self.kinds.clear();
        self
    }
    /// Judges each kind by its bundle in `bundles` (each kind under what its own CRD
    /// declares): [`BuildOptions::release`] and [`BuildOptions::channel`] from its default,
    /// [`BuildOptions::kinds`] from its overrides.
    ///
    /// ```
    /// use gamma_model::ResourceKind;
    /// use gamma_model::validate::{Bundle, Channel, KindBundles, Release};
    /// use gamma_resolve::{BuildOptions, HostnamePrecedence};
    /// use gamma_model::RouteKind;
    /// let v1_6 = Bundle::new(Release::V1_6, Channel::Standard);
    /// let kinds = KindBundles::new(Bundle::default()).with_kind(ResourceKind::GrpcRoute, v1_6);
    /// let options = BuildOptions::default().with_bundles(&kinds);
    /// assert_eq!(options.bundles(), kinds);
    /// assert_eq!(options.hostname_precedence_of(RouteKind::Http), HostnamePrecedence::RouteHostname);
    /// assert_eq!(options.hostname_precedence_of(RouteKind::Grpc), HostnamePrecedence::Intersection);
    /// ```
    pub fn with_bundles(mut self, bundles: &KindBundles) -> Self {
        let default = bundles.default_bundle();
        self.release = default.release;
        self.channel = default.channel;
        self.kinds = bundles.overrides().collect();
        self
    }
    /// The bundle of each kind: [`BuildOptions::release`] and [`BuildOptions::channel`], and
    /// [`BuildOptions::kinds`].
    pub fn bundles(&self) -> KindBundles {
        self.kinds.iter().fold(
            KindBundles::new(Bundle::new(self.release, self.channel)),
            |k, (kind, b)| k.with_kind(*kind, *b),
        )
    }
    /// The validation options of a build: the bundle of each kind.
    pub(crate) fn validate_options(&self) -> gamma_model::validate::ValidateOptions {
        gamma_model::validate::ValidateOptions::bundles(&self.bundles())
    }
    /// What a lowering of a build reads: [`BuildOptions::validate_options`] and
    /// [`BuildOptions::gateway_parameter_kinds`].
    pub(crate) fn lowering(&self) -> crate::lower::Lowering {
        crate::lower::Lowering::new(
            &self.validate_options(),
            self.gateway_parameter_kinds.clone(),
        )
    }
    /// Sets [`BuildOptions::gateway_parameter_kinds`]: the `(group, kind)`s of Gateway
    /// `parametersRef` the embedder supports.
    pub fn with_gateway_parameter_kinds<G: Into<String>, K: Into<String>>(
        mut self,
        kinds: impl IntoIterator<Item = (G, K)>,
    ) -> Self {
        self.gateway_parameter_kinds = Some(
            kinds
                .into_iter()
                .map(|(g, k)| (g.into(), k.into()))
                .collect(),
        );
        self
    }
    /// Sets [`BuildOptions::hostname_precedence`], overriding the release's rule.
    pub fn with_hostname_precedence(mut self, p: HostnamePrecedence) -> Self {
        self.hostname_precedence = Some(p);
        self
    }
    /// The hostname precedence in force: [`BuildOptions::hostname_precedence`] when set, else
    /// the release's (of the kinds not in [`BuildOptions::kinds`]).
    pub fn effective_hostname_precedence(&self) -> HostnamePrecedence {
        self.hostname_precedence
            .unwrap_or_else(|| HostnamePrecedence::of_release(self.release))
    }
    /// The hostname precedence of routes of `kind`: [`BuildOptions::hostname_precedence`]
    /// when set, else the rule of the release of the kind's own bundle.
    pub fn hostname_precedence_of(&self, kind: RouteKind) -> HostnamePrecedence {
        let release = self
            .kinds
            .get(&kind.resource_kind())
            .map_or(self.release, |b| b.release);
        self.hostname_precedence
            .unwrap_or_else(|| HostnamePrecedence::of_release(release))
    }
    /// Sets [`BuildOptions::channel`].
    pub fn with_channel(mut self, channel: gamma_model::validate::Channel) -> Self {
        self.channel = channel;
        self
    }
    /// Sets [`BuildOptions::mesh_binding`] ([`MeshBinding::Workloads`] is beyond the spec).
    pub fn with_mesh_binding(mut self, b: MeshBinding) -> Self {
        self.mesh_binding = b;
        self
    }
    /// Sets [`BuildOptions::keep_lowered_routes`] (more memory, cheaper updates).
    pub fn with_keep_lowered_routes(mut self, on: bool) -> Self {
        self.keep_lowered_routes = on;
        self
    }
    /// Sets [`BuildOptions::core_group_alias`] (non-standard: `group: core` is the core group).
    pub fn with_core_group_alias(mut self, on: bool) -> Self {
        self.core_group_alias = on;
        self
    }
    /// Sets [`BuildOptions::mesh_hostnames`].
    pub fn with_mesh_hostnames(mut self, p: MeshHostnames) -> Self {
        self.mesh_hostnames = p;
        self
    }
    /// Sets [`BuildOptions::mesh_reference_grants`].
    pub fn with_mesh_reference_grants(mut self, p: MeshReferenceGrants) -> Self {
        self.mesh_reference_grants = p;
        self
    }
    /// Sets [`BuildOptions::extension_refs`].
    pub fn with_extension_refs(mut self, p: ExtensionRefs) -> Self {
        self.extension_refs = p;
        self
    }
    /// Sets [`BuildOptions::hash_seed`].
    pub fn with_hash_seed(mut self, seed: u64) -> Self {
        self.hash_seed = seed;
        self
    }
    /// Sets [`BuildOptions::include`].
    pub fn with_include(mut self, pairs: impl IntoIterator<Item = RouteParentKey>) -> Self {
        self.include = Some(pairs.into_iter().collect());
        self
    }
}
