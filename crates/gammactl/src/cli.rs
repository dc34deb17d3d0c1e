//! The command line, as clap derive types.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// gammactl: see what gamma-rs decides about Gateway API routes in a service mesh.
///
/// Reads Kubernetes manifests (Gateway API routes, Services, Namespaces, EndpointSlices,
/// Gateways, XMesh, ...) and answers: are they valid, where does a request go and why, which
/// controller owns each route, and what status would it write.
///
/// Exit codes: 0 success, 1 the input has problems, 2 usage errors.
#[derive(Debug, Parser)]
#[command(name = "gammactl", version, propagate_version = true)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Decode and validate manifests; list every problem with file, line, object and field.
    Validate(ValidateArgs),
    /// Resolve requests against the manifests: where each one goes.
    Resolve(ResolveArgs),
    /// Explain, step by step, how one request is resolved.
    Explain(ExplainArgs),
    /// Show which controller owns each (route, parent) pair, and why.
    Owners(OwnersArgs),
    /// Show the route status updates a controller would write.
    Status(StatusArgs),
    /// Print the JSON Schema of a resource kind, or of the request/decision format.
    Schema(SchemaArgs),
    /// Convert other mesh APIs to Gateway API routes.
    #[command(subcommand)]
    Convert(ConvertCommand),
    /// Decide whether SMI access control (TrafficTarget) allows a request between two
    /// ServiceAccounts, or with --from-identity whether XAuthorizationPolicies (GEP-3779,
    /// proposal) let an identity reach an IP:PORT: the reference to test a translation to a
    /// mesh's authorization policy.
    Authorize(AuthorizeArgs),
    /// Extend the installed Gateway API CRDs with a field gamma-rs models ahead of upstream.
    #[command(subcommand)]
    CrdExtension(CrdExtensionCommand),
}

/// The CRD extensions `gammactl crd-extension` installs.
#[derive(Debug, Subcommand)]
pub enum CrdExtensionCommand {
    /// Declare `parentRefs[].controllers` (ladder level 1, proposal gateway-api#3444) in
    /// `ParentReference` of every served version of every route CRD (HTTPRoute, GRPCRoute,
    /// TLSRoute, TCPRoute, UDPRoute; `spec.parentRefs[]` and `status.parents[].parentRef`), and
    /// annotate each CRD `gamma-rs.dev/crd-extension: controllers`.
    ///
    /// Without a cluster, prints the change as `kubectl patch crd --type=json` commands for the
    /// CRDs of --bundle-version and --channel. With --kubeconfig, --context or --cluster, reads
    /// the installed route CRDs and applies what each lacks (nothing when it is there: applying
    /// twice changes nothing). --remove does the inverse. The schema is the one `validate`
    /// checks against (generated from gamma-model's); the bundle's annotations are kept, so the
    /// `safe-upgrades` admission policy admits the change. Reinstalling the upstream CRDs (a
    /// Gateway API upgrade) removes the field: run this again after one. See
    /// docs/ownership.md, "The `controllers` field on a real cluster".
    Controllers(CrdExtensionArgs),
    /// Print a CustomResourceDefinition for XAuthorizationPolicy
    /// (`gateway.networking.x-k8s.io/v1alpha1`), the proposal model of GEP-3779 no Gateway
    /// API release ships, generated from gamma-model's JSON Schema; for clusters that want to
    /// try it (`gammactl crd-extension authorization-policy | kubectl apply -f -`).
    AuthorizationPolicy(CrdPrintArgs),
}

/// `gammactl crd-extension authorization-policy`.
#[derive(Debug, Args)]
pub struct CrdPrintArgs {
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `gammactl crd-extension controllers`.
#[derive(Debug, Args)]
pub struct CrdExtensionArgs {
    /// Apply to the cluster of this kubeconfig (its current context, or `--context`).
    #[arg(long, value_name = "PATH")]
    pub kubeconfig: Option<PathBuf>,
    /// Apply to this context's cluster (of `--kubeconfig`, else of `$KUBECONFIG` or
    /// `~/.kube/config`).
    #[arg(long, value_name = "NAME")]
    pub context: Option<String>,
    /// Apply to the cluster kubectl would use (the current kubeconfig context), or, inside a
    /// pod, the cluster of its service account.
    #[arg(long)]
    pub cluster: bool,
    /// With a cluster: send each patch as a server-side dry run (the API server validates and
    /// admits it, admission policies included, and stores nothing), and print it.
    #[arg(long)]
    pub dry_run: bool,
    /// Remove the extension instead (the inverse patch).
    #[arg(long)]
    pub remove: bool,
    /// Without a cluster: the Gateway API release whose CRDs to patch (`v1.7`, `v1.6.1`, ...).
    #[arg(
        long = "bundle-version",
        value_name = "VERSION",
        value_parser = gamma_mesh::model::validate::Release::parse,
        default_value_t = gamma_mesh::model::validate::Release::NEWEST,
        conflicts_with_all = ["kubeconfig", "context", "cluster"]
    )]
    pub bundle_version: gamma_mesh::model::validate::Release,
    /// Without a cluster: the release channel whose CRDs to patch.
    #[arg(
        long,
        value_enum,
        default_value_t = ChannelArg::Standard,
        conflicts_with_all = ["kubeconfig", "context", "cluster"]
    )]
    pub channel: ChannelArg,
    #[command(flatten)]
    pub output: OutputArgs,
}

impl InputArgs {
    /// The namespace of objects and names that give none: `-n`, else `default` (as kubectl).
    pub fn namespace(&self) -> &str {
        self.namespace
            .as_deref()
            .unwrap_or(crate::manifests::DEFAULT_NAMESPACE)
    }

    /// The bundle of `--bundle-version` and `--channel` (the newest release, the standard
    /// channel where not given): whose CRDs files are judged by, and read with the defaults of.
    pub fn bundle(&self) -> gamma_mesh::model::validate::Bundle {
        self.bundle_over(gamma_mesh::model::validate::Bundle::default())
    }

    /// `--bundle-version` and `--channel` where given, over `found` (what a cluster's CRDs
    /// name): an explicit flag wins.
    pub fn bundle_over(
        &self,
        found: gamma_mesh::model::validate::Bundle,
    ) -> gamma_mesh::model::validate::Bundle {
        gamma_mesh::model::validate::Bundle::new(
            self.bundle_version.unwrap_or(found.release),
            self.channel.map_or(found.channel, ChannelArg::channel),
        )
    }
}

impl CrdExtensionArgs {
    /// Whether a cluster is named (apply) rather than none (print).
    pub fn cluster_wanted(&self) -> bool {
        self.kubeconfig.is_some() || self.context.is_some() || self.cluster
    }
}

/// A CRD extension `validate` takes as installed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CrdExtensionArg {
    /// `parentRefs[].controllers` (`gammactl crd-extension controllers`).
    Controllers,
}

/// The transport of an `authorize` request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AccessProtocol {
    /// An HTTP request (METHOD PATH).
    Http,
    /// A TCP connection to --port.
    Tcp,
    /// UDP traffic to --port.
    Udp,
}

/// The verdict where no policy selects a workload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BaselineArg {
    /// Allow (GEP-3779's default).
    Allow,
    /// Deny (a default-deny mesh).
    Deny,
}

/// `gammactl authorize`.
#[derive(Debug, Args)]
pub struct AuthorizeArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub output: OutputArgs,
    /// The source ServiceAccount, NAMESPACE/NAME (SMI TrafficTargets).
    #[arg(
        long = "source",
        visible_alias = "from",
        value_name = "NAMESPACE/SERVICEACCOUNT",
        required_unless_present = "from_identity"
    )]
    pub from: Option<String>,
    /// Evaluate XAuthorizationPolicies (GEP-3779, proposal) instead of SMI: the peer's identity
    /// as a SPIFFE URI, an Istio principal (TD/ns/N/sa/S) or a Linkerd identity
    /// (S.N.serviceaccount.identity.linkerd.TD), or `unauthenticated`. --to is then IP:PORT.
    #[arg(long, value_name = "ID", conflicts_with_all = ["from", "method", "path", "protocol", "headers", "port"])]
    pub from_identity: Option<String>,
    /// The trust domain of the cluster's workloads (with --from-identity).
    #[arg(
        long,
        value_name = "DOMAIN",
        default_value = "cluster.local",
        requires = "from_identity"
    )]
    pub trust_domain: String,
    /// The verdict where no XAuthorizationPolicy selects the workload (with --from-identity).
    #[arg(long, value_enum, default_value = "allow", requires = "from_identity")]
    pub baseline: BaselineArg,
    /// The destination: a ServiceAccount NAMESPACE/NAME (SMI), or with --from-identity an
    /// IP:PORT (a Pod IP, or a Service IP and port, which lead to the Service's Pods).
    #[arg(
        long = "destination",
        visible_alias = "to",
        value_name = "NAMESPACE/SERVICEACCOUNT|IP:PORT"
    )]
    pub to: String,
    /// The destination port (required for tcp and udp).
    #[arg(long, value_name = "PORT")]
    pub port: Option<u16>,
    /// The transport (default: http when METHOD PATH are given, else tcp).
    #[arg(long, value_enum)]
    pub protocol: Option<AccessProtocol>,
    /// A request header `name=value`. Repeatable.
    #[arg(long = "header", short = 'H', value_name = "NAME=VALUE")]
    pub headers: Vec<String>,
    /// The HTTP method.
    #[arg(value_name = "METHOD")]
    pub method: Option<String>,
    /// The HTTP path.
    #[arg(value_name = "PATH")]
    pub path: Option<String>,
}

/// What `gammactl convert` converts.
#[derive(Debug, Subcommand)]
pub enum ConvertCommand {
    /// SMI TrafficSplits (with their HTTPRouteGroup/TCPRoute matches) to GAMMA producer routes.
    /// The routes go to standard output (YAML documents, or with -o json a kind: List); the
    /// report of everything not expressed exactly goes to standard error.
    Smi(ConvertSmiArgs),
    /// XAuthorizationPolicies (GEP-3779, proposal) to Istio AuthorizationPolicies or to Linkerd
    /// Servers, AuthorizationPolicies and MeshTLSAuthentications, for a mesh without the
    /// proposal. The objects go to standard output (YAML documents, or with -o json a kind:
    /// List); the report of what does not map exactly goes to standard error.
    AuthorizationPolicy(ConvertAuthzArgs),
}

/// `gammactl convert authorization-policy`.
#[derive(Debug, Args)]
pub struct ConvertAuthzArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub output: OutputArgs,
    /// The mesh to translate for.
    #[arg(long, value_enum)]
    pub to: MeshArg,
    /// The trust domain of the cluster's workloads (ServiceAccount sources are in it).
    #[arg(long, value_name = "DOMAIN", default_value = "cluster.local")]
    pub trust_domain: String,
    /// The verdict where no XAuthorizationPolicy selects the workload (deny: for Istio an
    /// allow-nothing policy in the root namespace).
    #[arg(long, value_enum, default_value = "allow")]
    pub baseline: BaselineArg,
    /// Istio's root namespace (meshConfig.rootNamespace).
    #[arg(long, value_name = "NAMESPACE", default_value = "istio-system")]
    pub istio_root_namespace: String,
    /// The Linkerd cluster's default inbound policy, which ports without a Server keep.
    #[arg(long, value_enum, default_value = "all-unauthenticated")]
    pub linkerd_default_policy: LinkerdDefaultPolicyArg,
}

/// The mesh of `convert authorization-policy --to`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MeshArg {
    /// Istio `AuthorizationPolicy` (security.istio.io/v1).
    Istio,
    /// Linkerd `Server`, `AuthorizationPolicy`, `MeshTLSAuthentication` (policy.linkerd.io).
    Linkerd,
}

/// A Linkerd default inbound policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LinkerdDefaultPolicyArg {
    /// Every client, meshed or not (the install default).
    AllUnauthenticated,
    /// Every meshed client.
    AllAuthenticated,
    /// No client.
    Deny,
}

/// `gammactl convert smi`.
#[derive(Debug, Args)]
pub struct ConvertSmiArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `-f` inputs, or a live cluster.
#[derive(Debug, Args)]
#[command(group(
    clap::ArgGroup::new("source")
        .required(true)
        .multiple(true)
        .args(["files", "kubeconfig", "context", "cluster"])
))]
pub struct InputArgs {
    /// A manifest file, a folder (read recursively: *.yaml, *.yml, *.json, in sorted order),
    /// or `-` for standard input. Repeatable, or comma-separated as in kubectl
    /// (`-f a.yaml,b.yaml`). Multi-document YAML and JSON are accepted.
    #[arg(
        short = 'f',
        long = "filename",
        value_name = "PATH",
        value_delimiter = ','
    )]
    pub files: Vec<PathBuf>,
    /// Read the objects from the live cluster of this kubeconfig (its current context, or
    /// `--context`) instead of `-f`: one list of every kind gamma-rs reads, nothing written.
    #[arg(long, value_name = "PATH", conflicts_with = "files")]
    pub kubeconfig: Option<PathBuf>,
    /// Read the objects from this context's cluster (of `--kubeconfig`, else of `$KUBECONFIG`
    /// or `~/.kube/config`) instead of `-f`.
    #[arg(long, value_name = "NAME", conflicts_with = "files")]
    pub context: Option<String>,
    /// Read the objects from the cluster kubectl would use (the current kubeconfig context),
    /// or, inside a pod, the cluster of its service account, instead of `-f`.
    #[arg(long, conflicts_with = "files")]
    pub cluster: bool,
    /// The Gateway API release whose CRDs the objects are judged by: a minor series or any
    /// of its patch releases (`v1.7`, `v1.7.0`, `v1.6.3`, `v1.5.1`). Served versions, the
    /// fields each channel declares and the rules follow it (docs/validation.md, "Releases").
    /// Default: for files the newest (v1.7); for a cluster the release its CRDs name.
    #[arg(
        long = "bundle-version",
        value_name = "VERSION",
        value_parser = gamma_mesh::model::validate::Release::parse
    )]
    pub bundle_version: Option<gamma_mesh::model::validate::Release>,
    /// The release channel whose CRDs the objects are judged by: files are read with its
    /// defaults (as the API server applies them before storing), and a route invalid under its
    /// rules is left out of the table, which `explain`/`resolve` say for the Service or Gateway
    /// it names (docs/validation.md, "Defaults" and "One verdict per object"). Default: for
    /// files `standard`; for a cluster the channel its CRDs name.
    #[arg(long, value_enum)]
    pub channel: Option<ChannelArg>,
    /// The namespace, as kubectl's `-n`: of namespaced objects that name none (else
    /// `default`), of a bare `SERVICE:PORT` destination and the client's (`--from`) when not
    /// given; `owners` and `status` list only its routes.
    #[arg(short = 'n', long, value_name = "NAMESPACE")]
    pub namespace: Option<String>,
    /// Do not warn about objects of kinds gamma-rs does not read (Deployments, ConfigMaps, ...),
    /// summarised otherwise in one line on standard error.
    #[arg(short = 'q', long)]
    pub quiet: bool,
    /// The inputs hold every TLS Secret a listener's `tls.certificateRefs` may name, even when
    /// they hold none: a reference to a Secret they lack is `ResolvedRefs=False
    /// InvalidCertificateRef`. Implied when the files hold any Secret; without it and without
    /// Secrets, references are checked by kind and ReferenceGrant only. Files only: a cluster
    /// read lists no Secrets.
    #[arg(long, conflicts_with_all = ["kubeconfig", "context", "cluster"])]
    pub secrets_complete: bool,
    /// A CRD extension installed in the cluster the files are for (`gammactl crd-extension`),
    /// so that the fields it declares validate: `controllers` (`parentRefs[].controllers`,
    /// which the upstream CRDs do not declare: without it, an unknown field, which `validate`
    /// reports and every other command warns about). Repeatable. A cluster read
    /// (--kubeconfig) is judged by the extensions its CRDs have.
    #[arg(
        long = "crd-extension",
        value_enum,
        value_name = "EXTENSION",
        conflicts_with_all = ["kubeconfig", "context", "cluster"]
    )]
    pub crd_extensions: Vec<CrdExtensionArg>,
}

/// `-o` output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum Format {
    /// For people (the default).
    #[default]
    Text,
    /// JSON, for programs.
    Json,
    /// YAML, for programs and people.
    Yaml,
}

/// `-o`.
#[derive(Debug, Args)]
pub struct OutputArgs {
    /// Output format [default: text].
    #[arg(short = 'o', long = "output", value_enum)]
    pub format: Option<Format>,
}

impl OutputArgs {
    /// The format asked for, or text.
    pub fn format(&self) -> Format {
        self.format.unwrap_or_default()
    }
}

/// `--config`: the arbiter configuration, shared by every command that reads routes, so that
/// its compatibility settings (`coreGroupAlias`) give the same answer in each.
#[derive(Debug, Args)]
pub struct ConfigArgs {
    /// The arbiter configuration (registered meshes, selectors, keys, and compatibility
    /// settings such as `coreGroupAlias`); see examples/gamma-config.yaml. `owners`, `status`,
    /// `resolve`, `explain` and `validate` read routes under the same settings.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

/// The release channel whose validation rules apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum ChannelArg {
    /// The standard channel CRDs.
    #[default]
    Standard,
    /// The experimental channel CRDs (stricter in a few places).
    Experimental,
}

impl ChannelArg {
    /// The library's channel.
    pub fn channel(self) -> gamma_mesh::model::validate::Channel {
        match self {
            ChannelArg::Standard => gamma_mesh::model::validate::Channel::Standard,
            ChannelArg::Experimental => gamma_mesh::model::validate::Channel::Experimental,
        }
    }
}

/// Which addresses mesh routes bind to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum BindArg {
    /// Service cluster IPs only, as the Gateway API says (GEP-1294).
    #[default]
    ClusterIps,
    /// Also the ready endpoints of headless Services, on each port's targetPort (beyond the
    /// spec; docs/workloads.md).
    Workloads,
}

impl BindArg {
    /// The library's policy.
    pub fn binding(self) -> gamma_mesh::resolve::MeshBinding {
        match self {
            BindArg::ClusterIps => gamma_mesh::resolve::MeshBinding::ClusterIps,
            BindArg::Workloads => gamma_mesh::resolve::MeshBinding::Workloads,
        }
    }
}

/// What `validate` makes of unknown fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum FieldValidationArg {
    /// Unknown fields are errors.
    #[default]
    Strict,
    /// Unknown fields are warnings.
    Warn,
    /// Unknown fields are not reported.
    Ignore,
}

/// `gammactl validate`.
#[derive(Debug, Args)]
pub struct ValidateArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub output: OutputArgs,
    /// What unknown fields are, as the API server's `fieldValidation`: errors (`strict`, as
    /// kubectl), warnings (`warn`: the API server prunes them) or nothing (`ignore`).
    /// Experimental-only fields are unknown on the standard channel.
    #[arg(long, value_enum, default_value_t = FieldValidationArg::Strict)]
    pub field_validation: FieldValidationArg,
    /// The stored versions of the objects (a file or folder, as `-f`): each object that has one
    /// (same kind, namespace and name) is checked as an update of it, with the CRDs' transition
    /// rules (an immutable `controllerName`).
    #[arg(long, value_name = "PATH")]
    pub old: Option<std::path::PathBuf>,
    /// Also check references the way a controller would (parents and backends exist, listeners
    /// allow the route, ReferenceGrants permit cross-namespace backends); findings are warnings,
    /// since they are status, not invalid objects.
    #[arg(long)]
    pub refs: bool,
    #[command(flatten)]
    pub config: ConfigArgs,
}

/// The request protocol.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    ValueEnum,
    serde::Deserialize,
    serde::Serialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum ProtocolArg {
    /// HTTP/1.1 or HTTP/2.
    Http,
    /// gRPC (HTTP/2, path `/service/method`).
    Grpc,
    /// TLS, routed by SNI.
    Tls,
    /// Plain TCP.
    Tcp,
    /// UDP.
    Udp,
}

/// The request scheme.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    ValueEnum,
    serde::Deserialize,
    serde::Serialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum SchemeArg {
    /// Plain HTTP.
    Http,
    /// HTTP over TLS.
    Https,
}

/// One request, given by flags.
#[derive(Debug, Clone, Args)]
pub struct RequestArgs {
    /// The client's namespace (selects its consumer routes, if any); default: -n's.
    #[arg(long, value_name = "NAMESPACE")]
    pub from: Option<String>,
    /// The destination: `IP:PORT`, `SERVICE.NAMESPACE:PORT` (looked up to its cluster IP;
    /// `SERVICE:PORT` is in the client's namespace, --from or -n, else `default`, as
    /// kubectl), `gateway/NAMESPACE/NAME:PORT`, or
    /// `listenerset/NAMESPACE/NAME:PORT` (a ListenerSet listener's port on its Gateway).
    #[arg(long, value_name = "DESTINATION")]
    pub to: Option<String>,
    /// The Host header (or :authority).
    #[arg(long)]
    pub host: Option<String>,
    /// A request header `name=value`. Repeatable.
    #[arg(long = "header", short = 'H', value_name = "NAME=VALUE")]
    pub headers: Vec<String>,
    /// TLS server name (SNI).
    #[arg(long)]
    pub sni: Option<String>,
    /// The protocol (default: http when METHOD or PATH is given, else tls with --sni, else tcp).
    #[arg(long, value_enum)]
    pub protocol: Option<ProtocolArg>,
    /// The request's scheme, which a RequestRedirect without `scheme` keeps. Default: https
    /// through a Gateway listener that terminates TLS (protocol HTTPS), else http; give https
    /// for a mesh request the client sends over TLS.
    #[arg(long, value_enum)]
    pub scheme: Option<SchemeArg>,
    /// The entropy for the weighted backend pick (a u64, default 0; the same value always picks
    /// the same backend).
    #[arg(long, value_name = "N")]
    pub entropy: Option<u64>,
    /// The HTTP method, e.g. GET.
    #[arg(value_name = "METHOD")]
    pub method: Option<String>,
    /// The request path, possibly with a query (`/api/orders?page=2`).
    #[arg(value_name = "PATH")]
    pub path: Option<String>,
}

/// `gammactl resolve`.
#[derive(Debug, Args)]
#[command(mut_arg("format", |a| {
    a.help("Output format [default: text; with --requests, JSON lines]")
}))]
pub struct ResolveArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub output: OutputArgs,
    /// Which addresses mesh routes bind to: Service cluster IPs (the Gateway API's rule), or
    /// also the ready endpoints of headless Services (beyond the spec; docs/workloads.md).
    #[arg(long, value_enum, default_value_t = BindArg::ClusterIps)]
    pub bind: BindArg,
    #[command(flatten)]
    pub config: ConfigArgs,
    #[command(flatten)]
    pub request: RequestArgs,
    /// Resolve many requests: a file (or `-`) of JSON lines, one request object per line
    /// (fields from, to, host, method, path, headers, sni, protocol, scheme, entropy). Answers
    /// one JSON decision per line.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["from", "to", "host", "headers", "sni", "protocol", "scheme", "entropy", "method", "path", "sample"])]
    pub requests: Option<PathBuf>,
    /// Resolve the request N times with entropies spread evenly over the u64 range and print
    /// how the outcomes are distributed (a weighted split at a glance).
    #[arg(long, value_name = "N", conflicts_with = "entropy")]
    pub sample: Option<u32>,
    /// Follow the request through every hop: a backend Service with routes of its own on that
    /// port is the next hop, resolved from the caller's namespace (docs/chains.md). With
    /// --sample, count how chains end and print the exact end-to-end split too.
    #[arg(long, conflicts_with = "requests")]
    pub follow: bool,
    #[command(flatten)]
    pub verdict: VerdictArgs,
}

/// `--from-identity` with `--follow` (`resolve`, `explain`): the followed request ends with the
/// XAuthorizationPolicy verdict where it is delivered (`cmd/verdict.rs`).
#[derive(Debug, Args)]
pub struct VerdictArgs {
    /// With --follow: finish with the XAuthorizationPolicy (GEP-3779, proposal) verdict for this
    /// peer at the Pods behind the backend Service the request reaches, on their port. The
    /// forms of `authorize --from-identity`: a SPIFFE URI, an Istio principal, a Linkerd
    /// identity, or `unauthenticated`.
    #[arg(long, value_name = "ID", requires = "follow")]
    pub from_identity: Option<String>,
    /// The trust domain of the cluster's workloads (with --from-identity).
    #[arg(
        long,
        value_name = "DOMAIN",
        default_value = "cluster.local",
        requires = "from_identity"
    )]
    pub trust_domain: String,
    /// The verdict where no XAuthorizationPolicy selects the workload (with --from-identity).
    #[arg(long, value_enum, default_value = "allow", requires = "from_identity")]
    pub baseline: BaselineArg,
}

/// `gammactl explain`.
#[derive(Debug, Args)]
pub struct ExplainArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub output: OutputArgs,
    /// Which addresses mesh routes bind to: Service cluster IPs (the Gateway API's rule), or
    /// also the ready endpoints of headless Services (beyond the spec; docs/workloads.md).
    #[arg(long, value_enum, default_value_t = BindArg::ClusterIps)]
    pub bind: BindArg,
    #[command(flatten)]
    pub config: ConfigArgs,
    #[command(flatten)]
    pub request: RequestArgs,
    /// Explain every hop: a backend Service with routes of its own on that port is the next
    /// hop, explained in turn (docs/chains.md).
    #[arg(long)]
    pub follow: bool,
    #[command(flatten)]
    pub verdict: VerdictArgs,
    /// List every candidate that does not match. By default the text lists the first
    /// 20 of them (and every candidate that matches) and counts the rest, so that a 404 on a
    /// port with thousands of rules stays readable; `-o json` and `-o yaml` always hold all.
    #[arg(long)]
    pub all_candidates: bool,
}

/// `gammactl owners`.
#[derive(Debug, Args)]
#[command(group(
    clap::ArgGroup::new("view")
        .args(["as_controller", "all"])
        .required(true)
        .multiple(true)
))]
pub struct OwnersArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub output: OutputArgs,
    /// The controller whose view to show (a controllerName or alias, or a mesh name).
    #[arg(long = "as", value_name = "CONTROLLER")]
    pub as_controller: Option<String>,
    #[command(flatten)]
    pub config: ConfigArgs,
    /// Show every registered controller side by side, highlighting conflicts and unclaimed
    /// parents.
    #[arg(long)]
    pub all: bool,
}

/// How `status` prints updates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum StatusForm {
    /// The full `status` object to write.
    #[default]
    Full,
    /// An RFC 6902 JSON patch per route (`kubectl patch --subresource=status --type=json`):
    /// tests of `metadata.resourceVersion` (when the input has one) and `metadata.generation`,
    /// then the merged `status`.
    Patch,
}

/// `gammactl status`.
#[derive(Debug, Args)]
pub struct StatusArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub output: OutputArgs,
    /// Which addresses mesh routes bind to: Service cluster IPs (the Gateway API's rule), or
    /// also the ready endpoints of headless Services (beyond the spec; docs/workloads.md).
    #[arg(long, value_enum, default_value_t = BindArg::ClusterIps)]
    pub bind: BindArg,
    /// The controller whose status entries to compute.
    #[arg(long = "as", value_name = "CONTROLLER")]
    pub as_controller: String,
    #[command(flatten)]
    pub config: ConfigArgs,
    /// The time written as lastTransitionTime where a condition changes (RFC 3339, e.g.
    /// 2026-11-29T12:00:00Z). Default: the current time (system clock); give one for
    /// reproducible output.
    #[arg(long, value_name = "RFC3339")]
    pub now: Option<String>,
    /// Full status objects, or patches.
    #[arg(long, value_enum, default_value_t = StatusForm::Full)]
    pub form: StatusForm,
}

/// `gammactl schema`.
#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// A resource kind (`HTTPRoute`, `Service`, ...; any case), `request` (a line of
    /// `resolve --requests`), `decision`, `explanation` or `config`. `list` prints the choices.
    #[arg(value_name = "KIND")]
    pub kind: String,
    #[command(flatten)]
    pub output: OutputArgs,
}
