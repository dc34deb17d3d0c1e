//! XAuthorizationPolicy validation (GEP-3779, a proposal: no CRD exists upstream). Every rule
//! the GEP text states, as typed errors with field paths (the GEP says its targetRef rules
//! "will be translated to CEL later"), and the rules its defects leave out (module docs of
//! [`crate::xauthz`]): a Pod target has a selector and no name, any other kind a name and no
//! selector; a SPIFFE source has a trust domain and a path; a source's member matches its
//! `type`.

use super::common;
use super::{ErrorKind, Errors, FieldPath, Validate, ValidateOptions};
use crate::gateway::{LabelSelector, SelectorError};
use crate::xauthz::{AuthorizationSource, AuthorizationSourceType, SpiffeId, XAuthorizationPolicy};

/// The most `targetRefs` a policy may have (GEP-713's limit on policy targetRefs).
const MAX_TARGET_REFS: usize = 16;

impl Validate for XAuthorizationPolicy {
    fn collect_errors(&self, path: &FieldPath, _opts: &ValidateOptions, errors: &mut Errors) {
        common::metadata(&self.metadata, path, true, errors);
        let spath = path.field("spec");
        let s = &self.spec;

        let tpath = spath.field("targetRefs");
        if errors.items(&tpath, s.target_refs.len(), 1, MAX_TARGET_REFS) {
            let pods = s.target_refs.iter().filter(|t| t.is_pod()).count();
            // "When Kind is Pod, ... Max targetRef length is 1."
            if pods > 0 && s.target_refs.len() > 1 {
                errors.rule(
                    tpath.clone(),
                    "a Pod target (label selector) must be the only targetRef",
                );
            }
        }
        for (i, t) in s.target_refs.iter().enumerate() {
            let ipath = tpath.index(i);
            errors.group(&ipath.field("group"), &t.group);
            errors.kind(&ipath.field("kind"), &t.kind);
            if t.is_pod() {
                // "When Kind is Pod, Name MUST be Empty, Selector MUST be set".
                if t.name.is_some() {
                    errors.push(
                        ipath.field("name"),
                        ErrorKind::Forbidden {
                            reason: "a Pod target selects by label, never by name".into(),
                        },
                    );
                }
                match &t.selector {
                    None => errors.push(ipath.field("selector"), ErrorKind::Required),
                    Some(sel) => label_selector(sel, &ipath.field("selector"), errors),
                }
            } else {
                // "selector MUST NOT be set" (CEL: "Selector may only be set when targeting
                // Pods."); a non-Pod target is named.
                if t.selector.is_some() {
                    errors.rule(
                        ipath.field("selector"),
                        "Selector may only be set when targeting Pods.",
                    );
                }
                match &t.name {
                    Some(n) => errors.object_name(&ipath.field("name"), n),
                    None => errors.push(ipath.field("name"), ErrorKind::Required),
                }
            }
        }

        match &s.action {
            None => errors.push(spath.field("action"), ErrorKind::Required),
            Some(a) => errors.known(&spath.field("action"), a),
        }
        match &s.enforcement_level {
            None => errors.push(spath.field("enforcementLevel"), ErrorKind::Required),
            Some(l) => errors.known(&spath.field("enforcementLevel"), l),
        }

        let rpath = spath.field("rules");
        for (i, r) in s.rules.iter().flatten().enumerate() {
            let ipath = rpath.index(i);
            if let Some(sources) = &r.sources {
                let srcpath = ipath.field("sources");
                for (j, src) in sources.iter().enumerate() {
                    source(src, &srcpath.index(j), errors);
                }
            }
            if let Some(attrs) = &r.network_attributes {
                let ppath = ipath.field("networkAttributes").field("ports");
                for (j, port) in attrs.ports.iter().enumerate() {
                    errors.port(&ppath.index(j), *port);
                }
            }
        }
    }
}

/// One source: the member its `type` names is set, the other is not; a SPIFFE ID is strict; a
/// ServiceAccount has a name (`*` or a DNS-1123 subdomain) and a namespace, if any, is a label.
fn source(src: &AuthorizationSource, path: &FieldPath, errors: &mut Errors) {
    let Some(t) = &src.type_ else {
        errors.push(path.field("type"), ErrorKind::Required);
        return;
    };
    errors.known(&path.field("type"), t);
    let (is_spiffe, is_sa) = match t {
        AuthorizationSourceType::Spiffe => (true, false),
        AuthorizationSourceType::ServiceAccount => (false, true),
        AuthorizationSourceType::Unknown(_) => return,
    };
    let forbid = |errors: &mut Errors, field: &str| {
        errors.push(
            path.field(field),
            ErrorKind::Forbidden {
                reason: format!("type is {t}"),
            },
        );
    };
    if !is_spiffe && src.spiffe.is_some() {
        forbid(errors, "spiffe");
    }
    if !is_sa && src.service_account.is_some() {
        forbid(errors, "serviceAccount");
    }
    if is_spiffe {
        match &src.spiffe {
            None => errors.push(path.field("spiffe"), ErrorKind::Required),
            Some(id) => {
                if let Err(e) = SpiffeId::parse(id) {
                    errors.rule(
                        path.field("spiffe"),
                        format!("spiffe source must be spiffe://TRUST_DOMAIN/PATH: {e}"),
                    );
                }
            }
        }
    }
    if is_sa {
        let sapath = path.field("serviceAccount");
        match &src.service_account {
            None => errors.push(sapath, ErrorKind::Required),
            Some(sa) => {
                if let Some(ns) = &sa.namespace {
                    errors.namespace(&sapath.field("namespace"), ns);
                }
                let npath = sapath.field("name");
                if sa.name.is_empty() {
                    errors.push(npath, ErrorKind::Required);
                } else if sa.name != "*"
                    && errors.length(&npath, &sa.name, 1, 253)
                    && !super::patterns::is_dns_subdomain(&sa.name)
                {
                    errors.rule(
                        npath,
                        "must be \"*\" or a ServiceAccount name (a lowercase RFC 1123 subdomain)",
                    );
                }
            }
        }
    }
}

/// A label selector as the API server checks one: known operators, values only with `In` and
/// `NotIn` (and then some).
fn label_selector(sel: &LabelSelector, path: &FieldPath, errors: &mut Errors) {
    let mpath = path.field("matchExpressions");
    for (index, e) in sel.match_expressions.iter().enumerate() {
        let one = LabelSelector {
            match_labels: Default::default(),
            match_expressions: vec![e.clone()],
        };
        match one.matches(&Default::default()) {
            Ok(_) => {}
            Err(SelectorError::UnknownOperator { operator, .. }) => errors.unsupported(
                &mpath.index(index).field("operator"),
                &operator,
                &["In", "NotIn", "Exists", "DoesNotExist"],
            ),
            Err(e) => errors.rule(mpath.index(index).field("values"), e.to_string()),
        }
        if !super::patterns::is_label_key(&e.key) {
            errors.push(
                mpath.index(index).field("key"),
                ErrorKind::Pattern {
                    pattern: super::patterns::LABEL_KEY_PATTERN,
                },
            );
        }
    }
    for (k, v) in &sel.match_labels {
        let kpath = path.field("matchLabels").key(k);
        if !super::patterns::is_label_key(k) {
            errors.push(
                kpath.clone(),
                ErrorKind::Pattern {
                    pattern: super::patterns::LABEL_KEY_PATTERN,
                },
            );
        }
        if !super::patterns::is_label_value(v) || v.len() > 63 {
            errors.push(
                kpath,
                ErrorKind::Pattern {
                    pattern: super::patterns::LABEL_VALUE_PATTERN,
                },
            );
        }
    }
}
