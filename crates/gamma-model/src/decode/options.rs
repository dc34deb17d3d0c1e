//! [`DecodeOptions`]: the limits that keep decoding hostile input cheap, and what to do with
//! kinds gamma-rs does not model.

/// How [`decode_with`](crate::decode_with) and [`decode_documents`](crate::decode_documents)
/// treat their input.
///
/// The defaults are safe for hostile input: each limit bounds time and memory well below what a
/// controller process can afford, and sits far above what real manifests use. Refusing or
/// decoding a maximal input within the defaults takes in the order of a second of CPU and at
/// most a few hundred MB of memory (both dominated by `max_nodes`); lower the limits for tighter
/// budgets.
///
/// ```
/// use gamma_model::{DecodeOptions, decode_with};
/// let mut options = DecodeOptions::default();
/// options.max_depth = 16;
/// options.skip_unsupported = true;
/// let objects = decode_with("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\n", &options)?;
/// assert!(objects.is_empty());
/// # Ok::<(), gamma_model::DecodeError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct DecodeOptions {
    /// The largest input accepted, in bytes; larger input is refused before parsing.
    /// Default: 16 MiB (an object in etcd is at most 1.5 MiB; this leaves room for files of many
    /// manifests and `kubectl get -o yaml` dumps of large clusters).
    pub max_input_bytes: usize,
    /// The deepest nesting of mappings and sequences (objects and arrays), the root counting
    /// as 1. Default: 64 (Gateway API objects nest about 12 deep). Deeper input, in any shape
    /// (YAML flow or block, JSON), fails with [`Limit::Depth`](super::Limit::Depth) at the line
    /// of the first collection past the limit. JSON is additionally capped at 127 levels, the
    /// most `serde_json` parses, whatever this says (also reported as `Limit::Depth`).
    /// Building the untyped tree recurses once per level, so values far above the default need
    /// a thread with a large stack.
    pub max_depth: usize,
    /// The most YAML documents (or JSON array elements) in one input. Default: 10,000.
    pub max_documents: usize,
    /// The most nodes (mappings, sequences, scalars and keys) in one input, before YAML alias
    /// expansion. Default: 1,000,000 (1,000 typical HTTPRoutes take about 40,000). This limit
    /// bounds both memory (a few hundred bytes per node at most) and time: the YAML parser
    /// handles about a million nodes per second on one core.
    pub max_nodes: usize,
    /// The most YAML parser events replayed by alias (`*name`) expansion in one input: the
    /// defence against "billion laughs" alias bombs. Default: 100,000. Set to 0 to refuse
    /// anchors and aliases altogether (Kubernetes manifests rarely use them). The events kept
    /// for anchors are bounded by the smaller of this and `max_nodes`.
    pub max_alias_expansion: usize,
    /// Skip objects whose `apiVersion`/`kind` gamma-rs does not model (a `Deployment` in a
    /// folder of manifests) and report them in [`Decoded::skipped`](super::Decoded::skipped),
    /// instead of failing with [`DecodeError::UnsupportedKind`](super::DecodeError::UnsupportedKind).
    /// Default: `false`.
    pub skip_unsupported: bool,
    /// Record, for each object, its unknown fields, missing required fields and
    /// experimental-only fields ([`Document::fields`](super::Document::fields)), for
    /// [`Document::validate_with`](super::Document::validate_with) to judge as the API server
    /// does. Costs a walk of each object against its kind's schema; default: `false`.
    pub check_fields: bool,
    /// Apply the CRD defaults of the Gateway API bundle (release and channel) of each object's
    /// kind ([`KindBundles`](crate::validate::KindBundles): one bundle for every kind, or each
    /// kind's own CRD's) to it before typing it, as the API server does before storing it
    /// ([`apply_defaults`](crate::validate::apply_defaults)): a `parentRef` without `group`
    /// then reads `group: gateway.networking.k8s.io`, a rule without `matches` gets the
    /// `PathPrefix /` match, a `backendRef` gets `weight: 1`. A manifest and the object a
    /// cluster of that bundle stores from it then decode to the same value, and every verdict
    /// computed on them is the same. Default: `None`, the object as written (objects read from
    /// an API server are defaulted already).
    ///
    /// ```
    /// use gamma_model::validate::{Bundle, Channel, Release};
    /// use gamma_model::{AnyResource, DecodeOptions, decode_with};
    /// let text = "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\n\
    ///             metadata: {name: r, namespace: ns}\nspec: {parentRefs: [{kind: Service, name: web}]}\n";
    /// let mut options = DecodeOptions::default();
    /// options.defaults = Some(Bundle::new(Release::V1_7, Channel::Standard).into());
    /// let decoded = decode_with(text, &options)?;
    /// let Some(AnyResource::HttpRoute(route)) = decoded.first() else { unreachable!() };
    /// assert_eq!(route.spec.parent_refs[0].group.as_deref(), Some("gateway.networking.k8s.io"));
    /// // A route without rules gets the one rule the CRD defaults: match everything.
    /// assert_eq!(route.spec.rules.as_ref().map(Vec::len), Some(1));
    /// # Ok::<(), gamma_model::DecodeError>(())
    /// ```
    pub defaults: Option<crate::validate::KindBundles>,
}

impl DecodeOptions {
    /// The default limit on input size: 16 MiB.
    pub const DEFAULT_MAX_INPUT_BYTES: usize = 16 * 1024 * 1024;
    /// The default limit on nesting depth: 64.
    pub const DEFAULT_MAX_DEPTH: usize = 64;
    /// The default limit on documents: 10,000.
    pub const DEFAULT_MAX_DOCUMENTS: usize = 10_000;
    /// The default limit on nodes: 1,000,000.
    pub const DEFAULT_MAX_NODES: usize = 1_000_000;
    /// The default limit on replayed alias events: 100,000.
    pub const DEFAULT_MAX_ALIAS_EXPANSION: usize = 100_000;

    /// The defaults, with [`DecodeOptions::check_fields`] set: for validating as the API server
    /// does.
    pub fn checking_fields() -> Self {
        DecodeOptions {
            check_fields: true,
            ..DecodeOptions::default()
        }
    }

    /// The defaults, with [`DecodeOptions::skip_unsupported`] set: for reading folders of mixed
    /// manifests.
    pub fn skipping_unsupported() -> Self {
        DecodeOptions {
            skip_unsupported: true,
            ..DecodeOptions::default()
        }
    }
}

impl Default for DecodeOptions {
    fn default() -> Self {
        DecodeOptions {
            max_input_bytes: Self::DEFAULT_MAX_INPUT_BYTES,
            max_depth: Self::DEFAULT_MAX_DEPTH,
            max_documents: Self::DEFAULT_MAX_DOCUMENTS,
            max_nodes: Self::DEFAULT_MAX_NODES,
            max_alias_expansion: Self::DEFAULT_MAX_ALIAS_EXPANSION,
            skip_unsupported: false,
            check_fields: false,
            defaults: None,
        }
    }
}
