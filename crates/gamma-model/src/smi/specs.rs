//! `specs.smi-spec.io` traffic specs: HTTPRouteGroup, TCPRoute and UDPRoute.

use std::collections::BTreeSet;
use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{SmiVersion, check_api_version, check_name, compile_regex, not_in_version};
use crate::macros::string_enum;
use crate::meta::ObjectMeta;
use crate::validate::{ErrorKind, Errors, FieldPath, Validate, ValidateOptions};

/// The `apiVersion`s of HTTPRouteGroup and TCPRoute, newest first.
pub const SPECS_VERSIONS: &[&str] = &[
    "specs.smi-spec.io/v1alpha4",
    "specs.smi-spec.io/v1alpha3",
    "specs.smi-spec.io/v1alpha2",
    "specs.smi-spec.io/v1alpha1",
];

/// The `apiVersion`s of UDPRoute: it exists only in v1alpha4.
pub const UDP_ROUTE_VERSIONS: &[&str] = &["specs.smi-spec.io/v1alpha4"];

/// Describes HTTP traffic as named matches (path regex, methods, headers), referenced by
/// TrafficSplit `matches` and TrafficTarget rules.
///
/// v1alpha1/v1alpha2 keep `matches` at the top level; v1alpha3+ under `spec`. v1alpha1 has no
/// `headers`. [`HttpRouteGroup::matches`] returns the list the object's version uses.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HttpRouteGroup {
    /// `specs.smi-spec.io/v1alpha1` … `v1alpha4`, kept as decoded.
    #[serde(default = "HttpRouteGroup::default_api_version")]
    pub api_version: String,
    /// Always `HTTPRouteGroup`.
    #[serde(default = "HttpRouteGroup::kind_name")]
    pub kind: String,
    /// Object metadata.
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// **v1alpha1/v1alpha2** only: the matches.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub matches: Vec<HttpMatch>,
    /// **v1alpha3+**: the desired state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<HttpRouteGroupSpec>,
}

impl HttpRouteGroup {
    fn default_api_version() -> String {
        "specs.smi-spec.io/v1alpha4".into()
    }

    fn kind_name() -> String {
        "HTTPRouteGroup".into()
    }

    /// A new v1alpha4 HTTPRouteGroup.
    pub fn new(metadata: ObjectMeta, matches: Vec<HttpMatch>) -> Self {
        HttpRouteGroup {
            api_version: Self::default_api_version(),
            kind: Self::kind_name(),
            metadata,
            matches: Vec::new(),
            spec: Some(HttpRouteGroupSpec { matches }),
        }
    }

    /// The SMI version, when the `apiVersion` is one of [`SPECS_VERSIONS`].
    pub fn version(&self) -> Option<SmiVersion> {
        SPECS_VERSIONS
            .contains(&self.api_version.as_str())
            .then(|| SmiVersion::of(&self.api_version))
            .flatten()
    }

    /// The matches where the object's version keeps them: top-level before v1alpha3, under
    /// `spec` from v1alpha3 on.
    pub fn matches(&self) -> &[HttpMatch] {
        match self.version() {
            Some(SmiVersion::V1Alpha1 | SmiVersion::V1Alpha2) => &self.matches,
            _ => self.spec.as_ref().map_or(&[], |s| &s.matches),
        }
    }

    /// The match named `name`.
    pub fn match_named(&self, name: &str) -> Option<&HttpMatch> {
        self.matches().iter().find(|m| m.name == name)
    }
}

/// The desired state of an [`HttpRouteGroup`] (v1alpha3+).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HttpRouteGroupSpec {
    /// The matches.
    #[serde(default)]
    pub matches: Vec<HttpMatch>,
}

/// One named HTTP match. Conditions set in one match are ANDed; `methods` are ORed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HttpMatch {
    /// The match's name, its key within the group (TrafficTarget rules select matches by it).
    #[serde(default)]
    pub name: String,
    /// The methods; `*` means any. Omitted: any method.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub methods: Vec<HttpRouteMethod>,
    /// A regular expression anchored (`^`) to the beginning of the request path. Omitted: any
    /// path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path_regex: Option<String>,
    /// **v1alpha2+**: header name to value regular expression, all of which must match.
    #[serde(default, skip_serializing_if = "HeaderFilters::is_empty")]
    pub headers: HeaderFilters,
}

impl HttpMatch {
    /// Whether `methods` admits every method (empty, or contains `*`).
    pub fn any_method(&self) -> bool {
        self.methods.is_empty() || self.methods.contains(&HttpRouteMethod::All)
    }
}

string_enum! {
    /// An HTTP method in an SMI match, or `*` for any.
    pub enum HttpRouteMethod {
        /// Any method.
        All => "*",
        /// `GET`.
        Get => "GET",
        /// `HEAD`.
        Head => "HEAD",
        /// `PUT`.
        Put => "PUT",
        /// `POST`.
        Post => "POST",
        /// `DELETE`.
        Delete => "DELETE",
        /// `CONNECT`.
        Connect => "CONNECT",
        /// `OPTIONS`.
        Options => "OPTIONS",
        /// `TRACE`.
        Trace => "TRACE",
        /// `PATCH`.
        Patch => "PATCH",
    }
}

/// One header condition: the header `name` must be present with a value matching `value`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HeaderFilter {
    /// The header name (compared case-insensitively, as HTTP does).
    pub name: String,
    /// The regular expression the value must match.
    pub value: String,
}

/// The `headers` of an SMI match: a map from header name to value regex in the spec documents
/// and Go types, a list of such maps in the published CRD schema. Both forms decode; list
/// entries keep their written order (map keys come in the decoder's order, which does not
/// matter: all conditions must hold); encoding writes the map form.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct HeaderFilters(pub Vec<HeaderFilter>);

impl HeaderFilters {
    /// Whether there are no conditions.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The conditions, in written order.
    pub fn iter(&self) -> std::slice::Iter<'_, HeaderFilter> {
        self.0.iter()
    }
}

impl FromIterator<(String, String)> for HeaderFilters {
    fn from_iter<T: IntoIterator<Item = (String, String)>>(iter: T) -> Self {
        HeaderFilters(
            iter.into_iter()
                .map(|(name, value)| HeaderFilter { name, value })
                .collect(),
        )
    }
}

impl Serialize for HeaderFilters {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = serializer.serialize_map(Some(self.0.len()))?;
        for h in &self.0 {
            m.serialize_entry(&h.name, &h.value)?;
        }
        m.end()
    }
}

impl<'de> Deserialize<'de> for HeaderFilters {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = HeaderFilters;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map of header name to regex, or a list of such maps")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<HeaderFilters, A::Error> {
                let mut out = Vec::new();
                while let Some((name, value)) = map.next_entry::<String, String>()? {
                    out.push(HeaderFilter { name, value });
                }
                Ok(HeaderFilters(out))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<HeaderFilters, A::Error> {
                let mut out = Vec::new();
                while let Some(item) = seq.next_element::<HeaderFilters>()? {
                    out.extend(item.0);
                }
                Ok(HeaderFilters(out))
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<HeaderFilters, E> {
                Ok(HeaderFilters::default())
            }
        }
        deserializer.deserialize_any(V)
    }
}

impl JsonSchema for HeaderFilters {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "SmiHeaderFilters".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "anyOf": [
                { "type": "object", "additionalProperties": { "type": "string" } },
                { "type": "array", "items": { "type": "object", "additionalProperties": { "type": "string" } } }
            ]
        })
    }
}

impl Validate for HttpRouteGroup {
    fn collect_errors(&self, path: &FieldPath, _opts: &ValidateOptions, errors: &mut Errors) {
        let version = check_api_version(&self.api_version, SPECS_VERSIONS, errors, path);
        check_name(
            errors,
            &path.field("metadata").field("name"),
            &self.metadata.name,
        );
        let (used, used_path) = match version {
            Some(v @ (SmiVersion::V1Alpha1 | SmiVersion::V1Alpha2)) => {
                if self.spec.is_some() {
                    not_in_version(errors, path.field("spec"), v, "; use top-level matches");
                }
                (&self.matches, path.field("matches"))
            }
            Some(v) => {
                if !self.matches.is_empty() {
                    not_in_version(errors, path.field("matches"), v, "; use spec.matches");
                }
                match &self.spec {
                    Some(s) => (&s.matches, path.field("spec").field("matches")),
                    None => {
                        errors.push(path.field("spec"), ErrorKind::Required);
                        return;
                    }
                }
            }
            None => return,
        };
        let mut names = BTreeSet::new();
        for (i, m) in used.iter().enumerate() {
            let p = used_path.index(i);
            if m.name.is_empty() {
                errors.push(p.field("name"), ErrorKind::Required);
            } else if !names.insert(m.name.as_str()) {
                errors.push(
                    p.field("name"),
                    ErrorKind::Duplicate {
                        value: m.name.clone(),
                    },
                );
            }
            for (j, method) in m.methods.iter().enumerate() {
                if !method.is_known() {
                    errors.unsupported(
                        &p.field("methods").index(j),
                        method.as_str(),
                        HttpRouteMethod::KNOWN,
                    );
                }
            }
            if let Some(re) = &m.path_regex
                && let Err(e) = compile_regex(re)
            {
                errors.rule(
                    p.field("pathRegex"),
                    format!("invalid regular expression: {e}"),
                );
            }
            if version == Some(SmiVersion::V1Alpha1) && !m.headers.is_empty() {
                not_in_version(
                    errors,
                    p.field("headers"),
                    SmiVersion::V1Alpha1,
                    "; header filters arrived in v1alpha2",
                );
                continue;
            }
            let mut seen = BTreeSet::new();
            for h in m.headers.iter() {
                let hp = p.field("headers").key(&h.name);
                if h.name.is_empty() {
                    errors.push(hp.clone(), ErrorKind::Required);
                } else if !seen.insert(h.name.to_ascii_lowercase()) {
                    errors.push(
                        hp.clone(),
                        ErrorKind::Duplicate {
                            value: h.name.clone(),
                        },
                    );
                }
                if let Err(e) = compile_regex(&h.value) {
                    errors.rule(hp, format!("invalid regular expression: {e}"));
                }
            }
        }
    }
}

macro_rules! port_route {
    ($(#[$doc:meta])* $name:ident, $kind:literal, $versions:ident, $kindfn:ident, $kindfn_str:literal) => {
        fn $kindfn() -> String {
            $kind.to_owned()
        }

        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
        #[serde(rename_all = "camelCase")]
        pub struct $name {
            /// The apiVersion, kept as decoded.
            #[serde(default = "default_specs_version")]
            pub api_version: String,
            #[doc = concat!("Always `", $kind, "`.")]
            #[serde(default = $kindfn_str)]
            pub kind: String,
            /// Object metadata.
            #[serde(default)]
            pub metadata: ObjectMeta,
            /// The desired state (empty before v1alpha4).
            #[serde(default)]
            pub spec: PortRouteSpec,
        }

        impl $name {
            /// The kind name on the wire.
            pub const KIND: &'static str = $kind;

            /// A new v1alpha4 object matching `ports` (empty: every port).
            pub fn new(metadata: ObjectMeta, ports: Vec<i32>) -> Self {
                $name {
                    api_version: default_specs_version(),
                    kind: $kind.into(),
                    metadata,
                    spec: PortRouteSpec {
                        matches: Some(PortMatch { name: None, ports }),
                    },
                }
            }

            /// The SMI version, when the `apiVersion` is a known one for this kind.
            pub fn version(&self) -> Option<SmiVersion> {
                $versions
                    .contains(&self.api_version.as_str())
                    .then(|| SmiVersion::of(&self.api_version))
                    .flatten()
            }

            /// The ports matched; empty means every port of the destination.
            pub fn ports(&self) -> &[i32] {
                self.spec.matches.as_ref().map_or(&[], |m| &m.ports)
            }
        }

        impl Validate for $name {
            fn collect_errors(&self, path: &FieldPath, _opts: &ValidateOptions, errors: &mut Errors) {
                let version = check_api_version(&self.api_version, $versions, errors, path);
                check_name(errors, &path.field("metadata").field("name"), &self.metadata.name);
                let mp = path.field("spec").field("matches");
                if let Some(v) = version
                    && v < SmiVersion::V1Alpha4
                    && self.spec.matches.is_some()
                {
                    not_in_version(errors, mp.clone(), v, "; port matches arrived in v1alpha4");
                }
                for (i, port) in self.ports().iter().enumerate() {
                    errors.range(&mp.field("ports").index(i), i64::from(*port), 1, 65535);
                }
            }
        }
    };
}

fn default_specs_version() -> String {
    "specs.smi-spec.io/v1alpha4".into()
}

port_route!(
    /// SMI `TCPRoute`: raw TCP traffic, limited (v1alpha4) to a list of ports. Not the Gateway
    /// API TCPRoute: same kind name, API group `specs.smi-spec.io`.
    SmiTcpRoute, "TCPRoute", SPECS_VERSIONS, smi_tcp_route_kind, "smi_tcp_route_kind"
);
port_route!(
    /// SMI `UDPRoute` (v1alpha4): UDP traffic to a list of ports. Not the Gateway API UDPRoute.
    SmiUdpRoute, "UDPRoute", UDP_ROUTE_VERSIONS, smi_udp_route_kind, "smi_udp_route_kind"
);

/// The desired state of an SMI TCPRoute or UDPRoute.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PortRouteSpec {
    /// **v1alpha4**: the ports matched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matches: Option<PortMatch>,
}

/// The port condition of an SMI TCPRoute or UDPRoute.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PortMatch {
    /// An optional name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The destination ports; empty matches every port.
    #[serde(default)]
    pub ports: Vec<i32>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AnyResource, decode};

    fn group(yaml: &str) -> HttpRouteGroup {
        match decode(yaml).unwrap().remove(0) {
            AnyResource::HttpRouteGroup(g) => g,
            other => panic!("not an HTTPRouteGroup: {other:?}"),
        }
    }

    // smi-spec apis/traffic-specs/v1alpha2 keeps matches at the top level; v1alpha3 under spec.
    #[test]
    fn matches_are_read_where_the_version_keeps_them() {
        let v2 = group(
            "apiVersion: specs.smi-spec.io/v1alpha2\nkind: HTTPRouteGroup\nmetadata: {name: g}\nmatches:\n- {name: metrics, pathRegex: /metrics, methods: [GET]}\n",
        );
        assert_eq!(v2.matches().len(), 1);
        assert!(v2.validate().is_ok());
        let v3 = group(
            "apiVersion: specs.smi-spec.io/v1alpha3\nkind: HTTPRouteGroup\nmetadata: {name: g}\nmatches:\n- {name: metrics}\n",
        );
        assert!(v3.matches().is_empty());
        let errs = v3.validate().unwrap_err();
        assert!(errs.has_error_at("matches"), "{errs}");
        assert!(errs.has_error_at("spec"), "{errs}");
    }

    // The spec documents write headers as a map; the published CRD as a list of maps.
    #[test]
    fn headers_decode_from_a_map_or_a_list_of_maps_in_order() {
        let g = group(
            "apiVersion: specs.smi-spec.io/v1alpha4\nkind: HTTPRouteGroup\nmetadata: {name: g}\nspec:\n  matches:\n  - name: a\n    headers: {user-agent: '.*Android.*', cookie: '^(.*?;)?(type=insider)(;.*)?$'}\n  - name: b\n    headers: [{x-b: '1'}, {x-a: '2'}]\n",
        );
        let m = g.matches();
        let mut map_names: Vec<_> = m[0].headers.iter().map(|h| h.name.as_str()).collect();
        map_names.sort_unstable();
        assert_eq!(map_names, ["cookie", "user-agent"]);
        let names: Vec<_> = m[1].headers.iter().map(|h| h.name.as_str()).collect();
        assert_eq!(names, ["x-b", "x-a"]);
        assert!(g.validate().is_ok());
    }

    #[test]
    fn bad_regexes_unknown_methods_duplicates_and_v1alpha1_headers_are_reported() {
        let g = group(
            "apiVersion: specs.smi-spec.io/v1alpha4\nkind: HTTPRouteGroup\nmetadata: {name: g}\nspec:\n  matches:\n  - {name: a, pathRegex: '/(', methods: [FETCH]}\n  - {name: a, headers: [{X-A: '1'}, {x-a: '['}]}\n",
        );
        let errs = g.validate().unwrap_err();
        for p in [
            "spec.matches[0].pathRegex",
            "spec.matches[0].methods[0]",
            "spec.matches[1].name",
            "spec.matches[1].headers[x-a]",
        ] {
            assert!(errs.has_error_at(p), "{p}: {errs}");
        }
        let v1 = group(
            "apiVersion: specs.smi-spec.io/v1alpha1\nkind: HTTPRouteGroup\nmetadata: {name: g}\nmatches:\n- {name: a, headers: {x: z}}\n",
        );
        assert!(
            v1.validate()
                .unwrap_err()
                .has_error_at("matches[0].headers")
        );
    }

    // smi-spec apis/traffic-specs/v1alpha4: TCPRoute/UDPRoute `matches.ports`; none: every port.
    #[test]
    fn port_routes_carry_ports_from_v1alpha4_only() {
        let docs = decode(
            "apiVersion: specs.smi-spec.io/v1alpha4\nkind: TCPRoute\nmetadata: {name: t}\nspec: {matches: {ports: [3306, 0]}}\n---\napiVersion: specs.smi-spec.io/v1alpha3\nkind: TCPRoute\nmetadata: {name: t}\nspec: {matches: {ports: [1]}}\n---\napiVersion: specs.smi-spec.io/v1alpha4\nkind: UDPRoute\nmetadata: {name: u}\nspec: {matches: {ports: []}}\n",
        )
        .unwrap();
        let [
            AnyResource::SmiTcpRoute(t4),
            AnyResource::SmiTcpRoute(t3),
            AnyResource::SmiUdpRoute(u),
        ] = &docs[..]
        else {
            panic!("{docs:?}")
        };
        assert_eq!(t4.ports(), [3306, 0]);
        assert!(
            t4.validate()
                .unwrap_err()
                .has_error_at("spec.matches.ports[1]")
        );
        assert!(t3.validate().unwrap_err().has_error_at("spec.matches"));
        assert!(u.ports().is_empty());
        assert!(u.validate().is_ok());
    }
}
