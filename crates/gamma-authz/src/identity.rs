//! Peer identities in the three forms meshes write them, and the configuration they are read
//! with.
//!
//! | form | example | trust domain |
//! |---|---|---|
//! | SPIFFE URI | `spiffe://cluster.local/ns/shop/sa/web` | in the URI |
//! | Istio principal | `cluster.local/ns/shop/sa/web` | in the principal |
//! | Linkerd identity | `web.shop.serviceaccount.identity.linkerd.cluster.local` | the configured one |
//!
//! A Linkerd identity names no trust domain the way SPIFFE does: it is read as the
//! ServiceAccount `shop/web` in the configured trust domain ([`Config::trust_domain`]), and
//! rendered with the control-plane namespace `linkerd`.

use std::fmt;

use gamma_model::xauthz::SpiffeId;
use serde::Serialize;

/// How the engine reads identities and what applies where no policy does.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Config {
    /// The trust domain of the cluster's workloads: a ServiceAccount source matches only peers
    /// in it (GEP-3779: "The ServiceAccount listed here is expected to exist within the same
    /// trust domain as the targeted workload"). Default `cluster.local`.
    pub trust_domain: String,
    /// The verdict for a workload no policy selects (the mesh's baseline). GEP-3779: "traffic
    /// is permitted by default"; a mesh with a default-deny sets [`Baseline::Deny`].
    pub baseline: Baseline,
    /// Whether a peer without an identity (plaintext, no mTLS) matches a rule whose `sources`
    /// is omitted ("any source"). The GEP does not say; Istio (`from` unset) and Linkerd (no
    /// authentication refs) both admit such a peer, so the default is `true`.
    pub unauthenticated_is_any_source: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            trust_domain: "cluster.local".into(),
            baseline: Baseline::Allow,
            unauthenticated_is_any_source: true,
        }
    }
}

impl Config {
    /// The default configuration with `trust_domain`.
    pub fn with_trust_domain(trust_domain: impl Into<String>) -> Self {
        Config {
            trust_domain: trust_domain.into(),
            ..Config::default()
        }
    }

    /// This configuration with `baseline`.
    pub fn baseline(mut self, baseline: Baseline) -> Self {
        self.baseline = baseline;
        self
    }

    /// This configuration with [`Config::unauthenticated_is_any_source`] set to `value`.
    pub fn unauthenticated_is_any_source(mut self, value: bool) -> Self {
        self.unauthenticated_is_any_source = value;
        self
    }
}

/// The verdict for a workload no policy selects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Baseline {
    /// Allow (GEP-3779's default).
    Allow,
    /// Deny (a mesh-wide default-deny).
    Deny,
}

/// A peer's authenticated identity: a trust domain and either a Kubernetes ServiceAccount
/// (SPIFFE path `ns/N/sa/S`) or another SPIFFE path.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Identity {
    trust_domain: String,
    subject: Subject,
}

/// What an [`Identity`] names inside its trust domain.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Subject {
    /// A ServiceAccount (SPIFFE path `ns/NAMESPACE/sa/NAME`).
    ServiceAccount {
        /// The namespace.
        namespace: String,
        /// The ServiceAccount's name.
        name: String,
    },
    /// Any other SPIFFE path (without its leading `/`).
    Path(String),
}

/// Why a string is not an identity in any of the three forms.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum IdentityError {
    /// A `spiffe://` URI that is no valid SPIFFE ID.
    #[error("invalid SPIFFE ID {id:?}: {error}")]
    Spiffe {
        /// The text.
        id: String,
        /// What is wrong.
        error: gamma_model::xauthz::SpiffeIdError,
    },
    /// None of the three forms.
    #[error(
        "{0:?} is not an identity: expected spiffe://TRUST_DOMAIN/ns/NAMESPACE/sa/NAME, \
         TRUST_DOMAIN/ns/NAMESPACE/sa/NAME (Istio) or \
         NAME.NAMESPACE.serviceaccount.identity.linkerd.TRUST_DOMAIN (Linkerd)"
    )]
    Unrecognised(String),
}

/// Whether `s` is a valid SPIFFE path segment (so that the identity renders as a SPIFFE ID).
fn is_segment(s: &str) -> bool {
    !s.is_empty()
        && s != "."
        && s != ".."
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'))
}

/// `ns/N/sa/S` as (N, S).
fn service_account_path(path: &str) -> Option<(&str, &str)> {
    let rest = path.strip_prefix("ns/")?;
    let (ns, rest) = rest.split_once('/')?;
    let name = rest.strip_prefix("sa/")?;
    (!ns.is_empty() && !name.is_empty() && !name.contains('/')).then_some((ns, name))
}

impl Identity {
    /// The ServiceAccount `namespace/name` in `trust_domain`.
    pub fn service_account(trust_domain: &str, namespace: &str, name: &str) -> Self {
        Identity {
            trust_domain: trust_domain.to_owned(),
            subject: Subject::ServiceAccount {
                namespace: namespace.to_owned(),
                name: name.to_owned(),
            },
        }
    }

    /// The identity of a parsed SPIFFE ID.
    pub fn from_spiffe(id: SpiffeId<'_>) -> Self {
        let subject = match service_account_path(id.path) {
            Some((namespace, name)) => Subject::ServiceAccount {
                namespace: namespace.to_owned(),
                name: name.to_owned(),
            },
            None => Subject::Path(id.path.to_owned()),
        };
        Identity {
            trust_domain: id.trust_domain.to_owned(),
            subject,
        }
    }

    /// Reads any of the three forms (module docs); a Linkerd identity gets the configured
    /// trust domain.
    pub fn parse(text: &str, config: &Config) -> Result<Self, IdentityError> {
        if text.starts_with("spiffe://") {
            return SpiffeId::parse(text)
                .map(Identity::from_spiffe)
                .map_err(|error| IdentityError::Spiffe {
                    id: text.to_owned(),
                    error,
                });
        }
        if let Some((td, path)) = text.split_once('/')
            && let Some((ns, name)) = service_account_path(path)
            && !td.is_empty()
        {
            let uri = format!("spiffe://{td}/ns/{ns}/sa/{name}");
            return SpiffeId::parse(&uri)
                .map(Identity::from_spiffe)
                .map_err(|error| IdentityError::Spiffe { id: uri, error });
        }
        if let Some((sa_ns, _)) = text.split_once(".serviceaccount.identity.")
            && let Some((name, ns)) = sa_ns.rsplit_once('.')
            && is_segment(name)
            && is_segment(ns)
        {
            return Ok(Identity::service_account(&config.trust_domain, ns, name));
        }
        Err(IdentityError::Unrecognised(text.to_owned()))
    }

    /// The trust domain.
    pub fn trust_domain(&self) -> &str {
        &self.trust_domain
    }

    /// What the identity names in its trust domain.
    pub fn subject(&self) -> &Subject {
        &self.subject
    }

    /// The SPIFFE URI (`spiffe://TD/ns/N/sa/S`).
    pub fn spiffe_uri(&self) -> String {
        format!("spiffe://{}/{}", self.trust_domain, self.path())
    }

    /// The SPIFFE path without its leading `/`.
    pub fn path(&self) -> String {
        match &self.subject {
            Subject::ServiceAccount { namespace, name } => format!("ns/{namespace}/sa/{name}"),
            Subject::Path(p) => p.clone(),
        }
    }

    /// The Istio principal (`TD/ns/N/sa/S`).
    pub fn istio_principal(&self) -> String {
        format!("{}/{}", self.trust_domain, self.path())
    }

    /// The Linkerd identity (`S.N.serviceaccount.identity.linkerd.TD`), for a ServiceAccount.
    pub fn linkerd_identity(&self) -> Option<String> {
        match &self.subject {
            Subject::ServiceAccount { namespace, name } => Some(format!(
                "{name}.{namespace}.serviceaccount.identity.linkerd.{}",
                self.trust_domain
            )),
            Subject::Path(_) => None,
        }
    }
}

impl fmt::Display for Identity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "spiffe://{}/", self.trust_domain)?;
        match &self.subject {
            Subject::ServiceAccount { namespace, name } => write!(f, "ns/{namespace}/sa/{name}"),
            Subject::Path(p) => f.write_str(p),
        }
    }
}

impl Serialize for Identity {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The three forms of notes' identity table name the same ServiceAccount, and render back.
    #[test]
    fn the_three_identity_forms_read_and_render_the_same_service_account() {
        let config = Config::default();
        let want = Identity::service_account("cluster.local", "emojivoto", "web");
        for text in [
            "spiffe://cluster.local/ns/emojivoto/sa/web",
            "cluster.local/ns/emojivoto/sa/web",
            "web.emojivoto.serviceaccount.identity.linkerd.cluster.local",
        ] {
            assert_eq!(Identity::parse(text, &config).unwrap(), want, "{text}");
        }
        assert_eq!(
            want.spiffe_uri(),
            "spiffe://cluster.local/ns/emojivoto/sa/web"
        );
        assert_eq!(want.istio_principal(), "cluster.local/ns/emojivoto/sa/web");
        assert_eq!(
            want.linkerd_identity().as_deref(),
            Some("web.emojivoto.serviceaccount.identity.linkerd.cluster.local")
        );
        assert_eq!(want.to_string(), want.spiffe_uri());
    }

    // ServiceAccount names are DNS subdomains and may hold dots; namespaces are labels and
    // never do, so the namespace is the last label before `.serviceaccount.`.
    #[test]
    fn a_linkerd_identity_of_a_dotted_service_account_round_trips() {
        let config = Config::default();
        let id = Identity::service_account("cluster.local", "shop", "web.v2");
        let text = id.linkerd_identity().unwrap();
        assert_eq!(
            text,
            "web.v2.shop.serviceaccount.identity.linkerd.cluster.local"
        );
        assert_eq!(Identity::parse(&text, &config).unwrap(), id);
    }

    #[test]
    fn a_linkerd_identity_takes_the_configured_trust_domain() {
        let config = Config::with_trust_domain("prod.example");
        let id = Identity::parse(
            "web.shop.serviceaccount.identity.linkerd.cluster.local",
            &config,
        )
        .unwrap();
        assert_eq!(id.trust_domain(), "prod.example");
    }

    #[test]
    fn other_spiffe_paths_are_kept_and_malformed_identities_are_errors() {
        let config = Config::default();
        let id = Identity::parse("spiffe://td/workload/x", &config).unwrap();
        assert_eq!(id.subject(), &Subject::Path("workload/x".into()));
        assert_eq!(id.linkerd_identity(), None);
        for bad in [
            "spiffe://td",
            "shop/web",
            "",
            "td/ns//sa/x",
            "web.serviceaccount.identity.x",
        ] {
            assert!(Identity::parse(bad, &config).is_err(), "{bad:?}");
        }
    }
}
