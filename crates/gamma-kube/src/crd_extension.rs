//! The `controllers` CRD extension: `parentRefs[].controllers` (gamma-rs's model of the
//! proposal gateway-api#3444) declared in the installed route CRDs, and whether it is.
//!
//! No upstream CRD declares [`ParentReference::controllers`]: the API server refuses the field
//! under strict field validation (kubectl's default) and prunes it otherwise, so on a cluster
//! with the upstream CRDs ownership silently falls through to the lower levels of the ladder.
//! This module
//!
//! - generates the field's CRD schema from the JSON Schema gamma-model validates against
//!   ([`controllers_schema`]: schemars, converted to a structural OpenAPI v3 schema), never
//!   written by hand;
//! - makes the RFC 6902 JSON patch that adds it to `ParentReference` in every served version of
//!   a route CRD (`spec.parentRefs[]` and the status's `parents[].parentRef`), marks the CRD
//!   with [`EXTENSION_ANNOTATION`]`: controllers`, and the inverse patch ([`CrdState::patch`]);
//! - reads whether the installed CRDs declare it ([`Availability`], [`read`]), which gamma-kube's
//!   runtime and `gammactl --kubeconfig` use to decide ladder level 1 from the route annotation
//!   only where the field cannot be stored.
//!
//! A patch adds members with `add`, which replaces a member that exists: applying a patch twice
//! leaves the CRD as the first application left it, and the API server then stores nothing (no
//! new `resourceVersion`). Each patch starts with `test` operations on the names of the versions
//! it changes (JSON patch paths index `spec.versions`), and, when read from a cluster, on the
//! `gateway.networking.k8s.io/bundle-version` annotation: a CRD reinstalled in between fails the
//! patch as a whole instead of being changed at the wrong place. The bundle's annotations are
//! kept, so the `safe-upgrades` ValidatingAdmissionPolicy admits the change.
//!
//! Reinstalling the upstream CRDs (a Gateway API upgrade, `kubectl apply` of the release's
//! manifest) replaces `spec.versions` and so removes the field; the annotation, which the
//! upstream manifest does not name, may stay. A CRD with the annotation but without the field
//! is therefore reported as [`Availability::Removed`], not silently as never installed.
//!
//! ```
//! use gamma_kube::crd_extension::{CrdState, Direction, upstream_crds};
//! use gamma_model::validate::{Bundle, Channel, Release};
//! let crds = upstream_crds(Bundle::new(Release::V1_7, Channel::Standard));
//! let http = crds.iter().find(|c| c.name == "httproutes.gateway.networking.k8s.io").unwrap();
//! let patch = http.patch(Direction::Install).unwrap();
//! // `test` the version's name, then `add` the field to spec and status, per served version
//! assert_eq!(patch[0].op(), "test");
//! assert!(patch.iter().any(|op| op.path().ends_with("/parentRefs/items/properties/controllers")));
//! ```

use gamma_model::ResourceKind;
use gamma_model::gateway::ParentReference;
use gamma_model::validate::{BUNDLE_VERSION_ANNOTATION, Bundle, served};
use serde::Serialize;
use serde_json::{Map, Value, json};

/// The annotation gamma-rs sets on a CRD it extended; its value names the extension
/// ([`CONTROLLERS`]). The upstream manifests do not name it.
pub const EXTENSION_ANNOTATION: &str = "gamma-rs.dev/crd-extension";

/// The value of [`EXTENSION_ANNOTATION`] for the `controllers` extension.
pub const CONTROLLERS: &str = "controllers";

/// The field manager of the patches [`apply`] sends.
pub const FIELD_MANAGER: &str = "gamma-rs-crd-extension";

/// The route kinds whose `ParentReference` the extension extends, with their CRDs' names.
pub const ROUTE_CRDS: [(ResourceKind, &str); 5] = [
    (
        ResourceKind::HttpRoute,
        "httproutes.gateway.networking.k8s.io",
    ),
    (
        ResourceKind::GrpcRoute,
        "grpcroutes.gateway.networking.k8s.io",
    ),
    (
        ResourceKind::TlsRoute,
        "tlsroutes.gateway.networking.k8s.io",
    ),
    (
        ResourceKind::TcpRoute,
        "tcproutes.gateway.networking.k8s.io",
    ),
    (
        ResourceKind::UdpRoute,
        "udproutes.gateway.networking.k8s.io",
    ),
];

/// Where `ParentReference`'s properties are in a route version's `openAPIV3Schema`: in
/// `spec.parentRefs[]`, and in the status's `parents[].parentRef`.
const PLACES: [(Place, &str); 2] = [
    (
        Place::Spec,
        "/properties/spec/properties/parentRefs/items/properties",
    ),
    (
        Place::Status,
        "/properties/status/properties/parents/items/properties/parentRef/properties",
    ),
];

/// Where in a route version the field goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Place {
    /// `spec.parentRefs[].controllers`.
    Spec,
    /// `status.parents[].parentRef.controllers`.
    Status,
}

/// Why the field's CRD schema could not be generated from gamma-model's JSON Schema.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SchemaError {
    /// gamma-model's schema has no `ParentReference.controllers`.
    #[error("gamma-model's HTTPRoute schema has no $defs.ParentReference.properties.controllers")]
    Missing,
    /// A keyword a structural CRD schema cannot hold, or that this conversion does not know.
    #[error("{path}: JSON Schema keyword {keyword:?} has no structural CRD equivalent")]
    Unsupported {
        /// Where in the field's schema (`items`, say; empty at its root).
        path: String,
        /// The keyword.
        keyword: String,
    },
    /// A `type` that is not one type, or one type and `null`.
    #[error("{path}: type {found} is not one type (or one type and null)")]
    Type {
        /// Where in the field's schema.
        path: String,
        /// The `type` found.
        found: String,
    },
}

/// The structural OpenAPI v3 schema of `parentRefs[].controllers` that the extension installs,
/// converted from the JSON Schema gamma-model derives for [`ParentReference::controllers`]
/// (the one `validate` checks against): `null` is dropped from `type` (an absent field is the
/// same), `uniqueItems: true` becomes `x-kubernetes-list-type: set` (the API server refuses
/// `uniqueItems`), and every other keyword is kept as it is.
///
/// # Errors
///
/// [`SchemaError`] when gamma-model's schema has a keyword with no structural equivalent (a
/// change of the model this conversion must learn about, caught by the tests).
pub fn controllers_schema() -> Result<Value, SchemaError> {
    // The type is named so that a rename of the field or the type fails to compile here.
    let _: fn(&ParentReference) -> &Option<Vec<String>> = |p| &p.controllers;
    let schema = Value::from(gamma_model::schema::schema_for(ResourceKind::HttpRoute));
    let field = schema
        .pointer("/$defs/ParentReference/properties/controllers")
        .ok_or(SchemaError::Missing)?;
    structural(field, "")
}

fn structural(schema: &Value, path: &str) -> Result<Value, SchemaError> {
    let unsupported = |keyword: &str| SchemaError::Unsupported {
        path: path.to_owned(),
        keyword: keyword.to_owned(),
    };
    let object = schema
        .as_object()
        .ok_or_else(|| unsupported("(not an object)"))?;
    let mut out = Map::new();
    for (key, value) in object {
        match key.as_str() {
            "type" => {
                out.insert(key.clone(), Value::String(one_type(value, path)?));
            }
            "items" => {
                let at = if path.is_empty() {
                    "items".to_owned()
                } else {
                    format!("{path}.items")
                };
                out.insert(key.clone(), structural(value, &at)?);
            }
            "uniqueItems" => match value {
                Value::Bool(true) => {
                    out.insert("x-kubernetes-list-type".into(), "set".into());
                }
                Value::Bool(false) => {}
                _ => return Err(unsupported(key)),
            },
            "description" | "maxItems" | "minItems" | "maxLength" | "minLength" | "pattern"
            | "enum" | "format" | "maximum" | "minimum" => {
                out.insert(key.clone(), value.clone());
            }
            other => return Err(unsupported(other)),
        }
    }
    Ok(Value::Object(out))
}

fn one_type(value: &Value, path: &str) -> Result<String, SchemaError> {
    let types: Vec<&str> = match value {
        Value::String(t) => vec![t.as_str()],
        Value::Array(list) => list.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let mut non_null = types.iter().filter(|t| **t != "null");
    match (non_null.next(), non_null.next()) {
        (Some(t), None) => Ok((*t).to_owned()),
        _ => Err(SchemaError::Type {
            path: path.to_owned(),
            found: value.to_string(),
        }),
    }
}

/// Whether one place of one version declares the field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum FieldState {
    /// The version does not declare `controllers` there.
    Absent,
    /// It declares it with exactly [`controllers_schema`].
    Current,
    /// It declares it with another schema (an older gamma-rs, or a hand edit): the field is
    /// stored, and installing replaces the schema with the current one.
    Other,
    /// The version has no `ParentReference` properties at this place (not a route schema
    /// gamma-rs knows; offline, the status place of a CRD not read).
    NoPlace,
}

impl FieldState {
    /// Whether the field is declared (with any schema).
    pub fn is_declared(self) -> bool {
        matches!(self, FieldState::Current | FieldState::Other)
    }
}

/// One version of a route CRD.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct VersionState {
    /// The version's name (`v1`).
    pub name: String,
    /// Its index in `spec.versions` (JSON patch paths use it).
    pub index: usize,
    /// Whether the API server serves it.
    pub served: bool,
    /// `spec.parentRefs[].controllers`.
    pub spec: FieldState,
    /// `status.parents[].parentRef.controllers`.
    pub status: FieldState,
}

impl VersionState {
    fn at(&self, place: Place) -> FieldState {
        match place {
            Place::Spec => self.spec,
            Place::Status => self.status,
        }
    }
}

/// A route CRD as the extension sees it: its versions, and where the field is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CrdState {
    /// The CRD's name (`httproutes.gateway.networking.k8s.io`).
    pub name: String,
    /// The route kind it defines.
    pub kind: ResourceKind,
    /// Its `gateway.networking.k8s.io/bundle-version` annotation, when read from a cluster
    /// (the install patch then `test`s it); `None` for [`upstream_crds`].
    pub bundle_version: Option<String>,
    /// Whether `metadata.annotations` exists (a patch must create it otherwise).
    pub has_annotations: bool,
    /// Whether [`EXTENSION_ANNOTATION`]`: controllers` is set.
    pub annotated: bool,
    /// Every version the CRD lists, served or not, in `spec.versions` order.
    pub versions: Vec<VersionState>,
}

/// Why a CRD cannot be read as a route CRD.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CrdError {
    /// Not one of [`ROUTE_CRDS`].
    #[error("{name:?} is not a Gateway API route CRD")]
    NotARoute {
        /// The CRD's name.
        name: String,
    },
    /// `spec.versions` is missing or a version has no name.
    #[error("{name}: spec.versions is missing or malformed")]
    Malformed {
        /// The CRD's name.
        name: String,
    },
    /// A served version has no `spec.parentRefs[]` properties.
    #[error("{name} {version}: no spec.parentRefs[] properties in its openAPIV3Schema")]
    NoParentRefs {
        /// The CRD's name.
        name: String,
        /// The version.
        version: String,
    },
    /// The field's schema could not be generated.
    #[error(transparent)]
    Schema(#[from] SchemaError),
}

impl CrdState {
    /// Reads a route CRD (the API's JSON, or a manifest decoded to JSON).
    ///
    /// # Errors
    ///
    /// [`CrdError`] when `crd` is not a route CRD, or a served version has no
    /// `spec.parentRefs[]` properties (the patch would have nowhere to go).
    pub fn from_crd(crd: &Value) -> Result<CrdState, CrdError> {
        let name = crd
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let Some(kind) = ROUTE_CRDS.iter().find(|(_, n)| *n == name).map(|(k, _)| *k) else {
            return Err(CrdError::NotARoute { name });
        };
        let schema = controllers_schema()?;
        let annotations = crd
            .pointer("/metadata/annotations")
            .and_then(Value::as_object);
        let list = crd
            .pointer("/spec/versions")
            .and_then(Value::as_array)
            .ok_or_else(|| CrdError::Malformed { name: name.clone() })?;
        let mut versions = Vec::with_capacity(list.len());
        for (index, v) in list.iter().enumerate() {
            let version = v
                .get("name")
                .and_then(Value::as_str)
                .ok_or_else(|| CrdError::Malformed { name: name.clone() })?
                .to_owned();
            let served = v.get("served").and_then(Value::as_bool).unwrap_or(false);
            let root = v.pointer("/schema/openAPIV3Schema");
            let state = |place: &str| match root
                .and_then(|r| r.pointer(place))
                .and_then(Value::as_object)
            {
                None => FieldState::NoPlace,
                Some(props) => match props.get(CONTROLLERS) {
                    None => FieldState::Absent,
                    Some(s) if *s == schema => FieldState::Current,
                    Some(_) => FieldState::Other,
                },
            };
            let spec = state(PLACES[0].1);
            if served && spec == FieldState::NoPlace {
                return Err(CrdError::NoParentRefs { name, version });
            }
            versions.push(VersionState {
                name: version,
                index,
                served,
                spec,
                status: state(PLACES[1].1),
            });
        }
        Ok(CrdState {
            name,
            kind,
            bundle_version: annotations
                .and_then(|a| a.get(BUNDLE_VERSION_ANNOTATION))
                .and_then(Value::as_str)
                .map(str::to_owned),
            has_annotations: annotations.is_some(),
            annotated: annotations
                .and_then(|a| a.get(EXTENSION_ANNOTATION))
                .and_then(Value::as_str)
                == Some(CONTROLLERS),
            versions,
        })
    }

    /// A route CRD whose shape could not be read: no versions, so it declares nothing.
    #[cfg(feature = "client")]
    pub(crate) fn unreadable(name: &str) -> CrdState {
        CrdState {
            name: name.to_owned(),
            kind: ROUTE_CRDS
                .iter()
                .find(|(_, n)| *n == name)
                .map_or(ResourceKind::HttpRoute, |(k, _)| *k),
            bundle_version: None,
            has_annotations: false,
            annotated: false,
            versions: Vec::new(),
        }
    }

    /// Whether every served version declares `spec.parentRefs[].controllers` (with any
    /// schema): objects written at any served version keep the field.
    pub fn declares(&self) -> bool {
        let mut served = self.versions.iter().filter(|v| v.served).peekable();
        served.peek().is_some() && served.all(|v| v.spec.is_declared())
    }

    /// The served versions that do not declare `spec.parentRefs[].controllers`.
    pub fn lacking(&self) -> impl Iterator<Item = &str> {
        self.versions
            .iter()
            .filter(|v| v.served && !v.spec.is_declared())
            .map(|v| v.name.as_str())
    }

    /// The JSON patch that installs ([`Direction::Install`]) or removes
    /// ([`Direction::Remove`]) the extension in this CRD; empty when there is nothing to do.
    ///
    /// Installing adds the field where a served version lacks it or has another schema, and the
    /// annotation where it is missing; removing removes the field (any schema) and the
    /// annotation where present. Every change is preceded by `test`s of the version names it
    /// indexes and, when known, of the bundle-version annotation.
    ///
    /// # Errors
    ///
    /// [`SchemaError`] when the field's schema could not be generated.
    pub fn patch(&self, direction: Direction) -> Result<Vec<PatchOp>, SchemaError> {
        let schema = controllers_schema()?;
        let mut tests = Vec::new();
        let mut changes = Vec::new();
        for v in self.versions.iter().filter(|v| v.served) {
            let mut touched = false;
            for (place, pointer) in PLACES {
                let state = v.at(place);
                let path = format!(
                    "/spec/versions/{}/schema/openAPIV3Schema{pointer}/{CONTROLLERS}",
                    v.index
                );
                match (direction, state) {
                    (Direction::Install, FieldState::Absent | FieldState::Other) => {
                        changes.push(PatchOp::Add {
                            path,
                            value: schema.clone(),
                        });
                        touched = true;
                    }
                    (Direction::Remove, FieldState::Current | FieldState::Other) => {
                        changes.push(PatchOp::Remove { path });
                        touched = true;
                    }
                    _ => {}
                }
            }
            if touched {
                tests.push(PatchOp::Test {
                    path: format!("/spec/versions/{}/name", v.index),
                    value: Value::String(v.name.clone()),
                });
            }
        }
        let annotation = format!(
            "/metadata/annotations/{}",
            pointer_token(EXTENSION_ANNOTATION)
        );
        match direction {
            Direction::Install if !self.annotated => changes.push(if self.has_annotations {
                PatchOp::Add {
                    path: annotation,
                    value: Value::String(CONTROLLERS.into()),
                }
            } else {
                PatchOp::Add {
                    path: "/metadata/annotations".into(),
                    value: json!({ EXTENSION_ANNOTATION: CONTROLLERS }),
                }
            }),
            Direction::Remove if self.annotated => {
                changes.push(PatchOp::Remove { path: annotation })
            }
            _ => {}
        }
        if changes.is_empty() {
            return Ok(Vec::new());
        }
        if let Some(bundle) = &self.bundle_version {
            tests.push(PatchOp::Test {
                path: format!(
                    "/metadata/annotations/{}",
                    pointer_token(BUNDLE_VERSION_ANNOTATION)
                ),
                value: Value::String(bundle.clone()),
            });
        }
        tests.extend(changes);
        Ok(tests)
    }

    /// The state after `patch(direction)` was applied: what a second application finds.
    pub fn after(&self, direction: Direction) -> CrdState {
        let mut next = self.clone();
        for v in next.versions.iter_mut().filter(|v| v.served) {
            for state in [&mut v.spec, &mut v.status] {
                *state = match (direction, *state) {
                    (_, FieldState::NoPlace) => FieldState::NoPlace,
                    (Direction::Install, _) => FieldState::Current,
                    (Direction::Remove, _) => FieldState::Absent,
                };
            }
        }
        next.annotated = direction == Direction::Install;
        next.has_annotations |= next.annotated;
        next
    }
}

/// `~` and `/` escaped for a JSON pointer token (RFC 6901).
fn pointer_token(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// Which patch [`CrdState::patch`] makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Declare the field (and set the annotation).
    Install,
    /// Remove the field (and the annotation): the inverse.
    Remove,
}

/// One RFC 6902 operation, serialized as `kubectl patch --type=json` reads it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "op", rename_all = "lowercase")]
#[non_exhaustive]
pub enum PatchOp {
    /// Fails the whole patch unless `path` holds `value`.
    Test {
        /// A JSON pointer.
        path: String,
        /// The value expected.
        value: Value,
    },
    /// Sets `path` to `value` (replacing a member that exists).
    Add {
        /// A JSON pointer.
        path: String,
        /// The value.
        value: Value,
    },
    /// Removes `path` (fails the whole patch when it does not exist).
    Remove {
        /// A JSON pointer.
        path: String,
    },
}

impl PatchOp {
    /// `test`, `add` or `remove`.
    pub fn op(&self) -> &'static str {
        match self {
            PatchOp::Test { .. } => "test",
            PatchOp::Add { .. } => "add",
            PatchOp::Remove { .. } => "remove",
        }
    }

    /// The JSON pointer it applies to.
    pub fn path(&self) -> &str {
        match self {
            PatchOp::Test { path, .. } | PatchOp::Add { path, .. } | PatchOp::Remove { path } => {
                path
            }
        }
    }
}

/// The route CRDs of `bundle` as the upstream manifests define them (every version they list,
/// served or not, none declaring the field), for a patch printed without reading a cluster.
///
/// The versions and their order come from gamma-model's table of served versions
/// ([`served::served_in`]): a route CRD lists every version either channel of its release
/// serves, sorted by name, and serves those of its own channel (`tests/crd_extension.rs` checks
/// this against every release's manifests). The patch `test`s each version name it indexes, so
/// a CRD that differs fails to patch instead of being patched at the wrong place.
pub fn upstream_crds(bundle: Bundle) -> Vec<CrdState> {
    use gamma_model::validate::Channel;
    let mut out = Vec::new();
    for (kind, name) in ROUTE_CRDS {
        let mut listed: Vec<(String, bool)> = Vec::new();
        for api_version in kind.api_versions() {
            let serves = |b: Bundle| served::served_in(kind, api_version, b) == served::Served::Yes;
            let here = serves(bundle);
            let release = [Channel::Standard, Channel::Experimental]
                .into_iter()
                .any(|c| serves(Bundle::new(bundle.release, c)));
            if here || release {
                let version = api_version.rsplit('/').next().unwrap_or(api_version);
                listed.push((version.to_owned(), here));
            }
        }
        if !listed.iter().any(|(_, served)| *served) {
            continue; // the channel does not install this kind
        }
        listed.sort();
        out.push(CrdState {
            name: name.to_owned(),
            kind,
            bundle_version: None,
            has_annotations: true,
            annotated: false,
            versions: listed
                .into_iter()
                .enumerate()
                .map(|(index, (name, served))| VersionState {
                    name,
                    index,
                    served,
                    spec: FieldState::Absent,
                    status: FieldState::Absent,
                })
                .collect(),
        });
    }
    out
}

/// Whether the installed route CRDs declare `parentRefs[].controllers`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "state")]
#[non_exhaustive]
pub enum Availability {
    /// Every served version of every installed route CRD declares it: the API server stores
    /// the field, and ladder level 1 reads it.
    Declared,
    /// Some served version does not (the upstream CRDs): the API server refuses the field under
    /// strict field validation and prunes it otherwise, so level 1 reads only the route
    /// annotation.
    NotDeclared {
        /// `CRD version` pairs that lack it (`httproutes.gateway.networking.k8s.io v1`).
        lacking: Vec<String>,
    },
    /// As [`Availability::NotDeclared`], and some of those CRDs carry
    /// [`EXTENSION_ANNOTATION`]: the extension was installed, then the CRDs were reinstalled
    /// (a Gateway API upgrade), which removed the field.
    Removed {
        /// `CRD version` pairs that lack it.
        lacking: Vec<String>,
        /// The annotated CRDs among them.
        annotated: Vec<String>,
    },
}

impl Default for Availability {
    /// No route CRD read: nothing declared.
    fn default() -> Self {
        Availability::NotDeclared {
            lacking: Vec::new(),
        }
    }
}

impl Availability {
    /// The availability of the field over these route CRDs (those installed), in any order
    /// (the lists are sorted). No route CRD at all declares nothing:
    /// [`Availability::NotDeclared`] with nothing lacking.
    pub fn of<'a>(crds: impl IntoIterator<Item = &'a CrdState>) -> Availability {
        let mut lacking = Vec::new();
        let mut annotated = Vec::new();
        let mut any = false;
        for crd in crds {
            any = true;
            let before = lacking.len();
            lacking.extend(crd.lacking().map(|v| format!("{} {v}", crd.name)));
            if !crd.declares() && lacking.len() == before {
                lacking.push(format!("{} (no served version read)", crd.name));
            }
            if lacking.len() > before && crd.annotated {
                annotated.push(crd.name.clone());
            }
        }
        // The same CRDs read in any order give the same value.
        lacking.sort();
        annotated.sort();
        match (any, lacking.is_empty(), annotated.is_empty()) {
            (true, true, _) => Availability::Declared,
            (_, _, true) => Availability::NotDeclared { lacking },
            (_, _, false) => Availability::Removed { lacking, annotated },
        }
    }

    /// Whether the field is declared everywhere.
    pub fn is_declared(&self) -> bool {
        *self == Availability::Declared
    }
}

impl std::fmt::Display for Availability {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Availability::Declared => f.write_str(
                "every route CRD declares parentRefs[].controllers (the gamma-rs CRD extension)",
            ),
            Availability::NotDeclared { lacking } if lacking.is_empty() => {
                f.write_str("no route CRD is installed")
            }
            Availability::NotDeclared { lacking } => write!(
                f,
                "the route CRDs do not declare parentRefs[].controllers ({}): the API server \
                 refuses or prunes it, so ladder level 1 reads only the route annotation; \
                 `gammactl crd-extension controllers --kubeconfig ...` installs the field",
                lacking.join(", ")
            ),
            Availability::Removed { lacking, annotated } => write!(
                f,
                "the gamma-rs CRD extension was removed from {} (annotated {EXTENSION_ANNOTATION}, \
                 but {} lack parentRefs[].controllers: the CRDs were reinstalled, e.g. by a \
                 Gateway API upgrade): ladder level 1 reads only the route annotation until \
                 `gammactl crd-extension controllers --kubeconfig ...` installs it again",
                annotated.join(", "),
                lacking.join(", ")
            ),
        }
    }
}

#[cfg(feature = "client")]
/// The route CRDs of the cluster (those installed), read from the API server.
///
/// # Errors
///
/// [`ReadError`] when the API server cannot be read, or a CRD is not a route CRD gamma-rs knows
/// the shape of.
pub async fn read(client: &kube::Client) -> Result<Vec<CrdState>, ReadError> {
    use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
    let api: kube::Api<CustomResourceDefinition> = kube::Api::all(client.clone());
    let mut out = Vec::new();
    for (_, name) in ROUTE_CRDS {
        if let Some(crd) = api.get_opt(name).await? {
            out.push(CrdState::from_crd(&to_value(&crd))?);
        }
    }
    Ok(out)
}

#[cfg(feature = "client")]
/// A typed CRD as the API's JSON (its serialization cannot fail: string keys only).
pub(crate) fn to_value(
    crd: &k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition,
) -> Value {
    serde_json::to_value(crd).unwrap_or_default()
}

#[cfg(feature = "client")]
/// Why [`read`] or [`apply`] failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReadError {
    /// The API server refused or could not be reached.
    #[error("API server: {0}")]
    Api(#[from] kube::Error),
    /// A CRD has a shape the patch cannot be made for.
    #[error(transparent)]
    Crd(#[from] CrdError),
    /// The field's schema could not be generated.
    #[error(transparent)]
    Schema(#[from] SchemaError),
    /// A patch did not serialize as a JSON patch (a bug).
    #[error("JSON patch: {0}")]
    Patch(#[from] serde_json::Error),
}

/// What [`apply`] did to one CRD.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Applied {
    /// The CRD's name.
    pub crd: String,
    /// The patch sent; empty when the CRD was already as asked (nothing sent).
    pub patch: Vec<PatchOp>,
    /// The CRD as the API server stored it (or as read, when nothing was sent).
    pub state: CrdState,
}

#[cfg(feature = "client")]
/// Installs or removes the extension in every route CRD of the cluster: reads each, sends the
/// patch it needs (none when it is already as asked), and returns what was done, CRD by CRD.
/// With `dry_run`, the API server validates and admits each patch (its admission policies
/// included) but stores nothing.
///
/// # Errors
///
/// [`ReadError`] at the first CRD that cannot be read or patched; the CRDs before it were
/// patched.
pub async fn apply(
    client: &kube::Client,
    direction: Direction,
    dry_run: bool,
) -> Result<Vec<Applied>, ReadError> {
    use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
    let api: kube::Api<CustomResourceDefinition> = kube::Api::all(client.clone());
    let mut out = Vec::new();
    for crd in read(client).await? {
        let patch = crd.patch(direction)?;
        if patch.is_empty() {
            out.push(Applied {
                crd: crd.name.clone(),
                patch,
                state: crd,
            });
            continue;
        }
        let json: json_patch::Patch = serde_json::from_value(serde_json::to_value(&patch)?)?;
        let mut params = kube::api::PatchParams {
            field_manager: Some(FIELD_MANAGER.into()),
            field_validation: Some(kube::api::ValidationDirective::Strict),
            ..kube::api::PatchParams::default()
        };
        params.dry_run = dry_run;
        let stored = api
            .patch(&crd.name, &params, &kube::api::Patch::Json::<()>(json))
            .await?;
        out.push(Applied {
            crd: crd.name.clone(),
            patch,
            state: CrdState::from_crd(&to_value(&stored))?,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schema_is_gamma_models_with_null_dropped_and_unique_items_as_a_set() {
        let schema = controllers_schema().unwrap();
        assert_eq!(schema["type"], "array");
        assert_eq!(schema["x-kubernetes-list-type"], "set");
        assert!(schema.get("uniqueItems").is_none());
        assert_eq!(schema["items"]["type"], "string");
        let model = Value::from(gamma_model::schema::schema_for(ResourceKind::HttpRoute));
        let field = &model["$defs"]["ParentReference"]["properties"]["controllers"];
        for key in ["maxItems", "description"] {
            assert_eq!(schema[key], field[key], "{key}");
        }
        for key in ["minLength", "maxLength", "pattern"] {
            assert_eq!(schema["items"][key], field["items"][key], "{key}");
        }
    }

    #[test]
    fn keywords_without_a_structural_equivalent_are_refused_not_dropped() {
        let err = structural(&json!({"type": "array", "items": {"oneOf": []}}), "").unwrap_err();
        assert_eq!(
            err,
            SchemaError::Unsupported {
                path: "items".into(),
                keyword: "oneOf".into()
            }
        );
        let err = structural(&json!({"type": ["string", "integer"]}), "").unwrap_err();
        assert!(matches!(err, SchemaError::Type { .. }), "{err}");
    }
}
