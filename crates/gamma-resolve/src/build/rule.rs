//! Compiling one rule: its action (redirect, backends or a failure), mirrors, extras and the
//! rule's unresolved references.

use crate::decision::{Mirror, RespondReason};
use crate::input::{FiltersIr, PathModifierIr, RouteIr};
use crate::status::UnresolvedRef;
use crate::table::{
    Action, BackendEntry, BackendState, ExtensionRefs, Extras, InvalidRef, RewriteC, RuleEntry,
};

use super::Builder;
use super::attach::RuleIds;
use super::read::{BackendRead, BackendsRead, RouteRead, RuleRead};

impl<'i> Builder<'i> {
    /// Compiles the rules of a route for mesh (`flavour` 0) or Gateway (1) parents; ids are
    /// `None` for dropped rules.
    pub(super) fn rules_of(
        &mut self,
        ri: usize,
        route_id: u32,
        route: RouteRead<'i>,
        mesh: bool,
    ) -> RuleIds {
        let f = usize::from(!mesh);
        if let Some(ids) = self
            .rule_ids
            .get(ri)
            .and_then(|s| s.get(f))
            .copied()
            .flatten()
        {
            return ids;
        }
        let start = u32::try_from(self.rule_id_pool.len()).unwrap_or(u32::MAX);
        for (i, rule) in route.rules.iter().enumerate() {
            let id = if rule.invalid.is_some() {
                None
            } else {
                self.compile_rule(
                    route_id,
                    u16::try_from(i).unwrap_or(u16::MAX),
                    route.ir,
                    rule,
                    mesh,
                )
            };
            self.rule_id_pool.push(id);
        }
        let end = u32::try_from(self.rule_id_pool.len()).unwrap_or(u32::MAX);
        let ids = (start, end - start);
        if let Some(slot) = self.rule_ids.get_mut(ri).and_then(|s| s.get_mut(f)) {
            *slot = Some(ids);
        }
        ids
    }

    /// The compiled rule ids of a run.
    pub(super) fn ids(&self, r: RuleIds) -> &[Option<u32>] {
        let start = r.0 as usize;
        self.rule_id_pool
            .get(start..start + r.1 as usize)
            .unwrap_or(&[])
    }

    pub(super) fn compile_rule(
        &mut self,
        route_id: u32,
        index: u16,
        route: &RouteIr,
        rule: RuleRead<'i>,
        mesh: bool,
    ) -> Option<u32> {
        let rewrite = |f: &FiltersIr| {
            f.rewrite.as_ref().map(|r| RewriteC {
                hostname: r.hostname.as_deref().map(Into::into),
                path: r.path.clone(),
            })
        };
        let mut extensions: Vec<String> = if rule.filters.extensions.is_empty() {
            Vec::new()
        } else {
            rule.filters.extensions.clone()
        };
        let action = if let Some(r) = &rule.filters.redirect {
            Action::Redirect(Box::new(r.clone()))
        } else if rule.filters.extensions.is_empty()
            || self.options.extension_refs == ExtensionRefs::PassThrough
        {
            if rule.backends.is_empty() {
                Action::Fail(RespondReason::NoBackends)
            } else {
                let start = u32::try_from(self.backends.len()).ok()?;
                for b in rule.backends.iter() {
                    let target = self.target(b);
                    let mut state = self.backend_state_of(target, route, b, mesh);
                    if !b.filters.extensions.is_empty() {
                        if self.options.extension_refs == ExtensionRefs::Reject {
                            state = BackendState::Invalid(InvalidRef::InvalidKind);
                        } else {
                            extensions.extend(b.filters.extensions.iter().cloned());
                        }
                    }
                    // most backendRefs carry no filters: skip the clones entirely
                    let extras = if b.filters.request_headers.is_empty()
                        && b.filters.response_headers.is_empty()
                        && b.filters.rewrite.is_none()
                    {
                        0
                    } else {
                        self.push_extras(Extras {
                            request_headers: b.filters.request_headers.clone(),
                            response_headers: b.filters.response_headers.clone(),
                            rewrite: rewrite(b.filters),
                            ..Extras::default()
                        })
                    };
                    self.backends.push(BackendEntry {
                        weight: b.weight,
                        target,
                        state,
                        extras,
                    });
                }
                let len = u32::try_from(rule.backends.len()).ok()?;
                Action::Backends(start, len)
            }
        } else {
            Action::Fail(RespondReason::UnsupportedFilter)
        };
        let mirrors: Vec<Mirror> = if rule.filters.mirrors.is_empty() {
            Vec::new()
        } else {
            rule.filters
                .mirrors
                .iter()
                .filter(|m| {
                    self.backend_state(route, BackendRead::lowered(&m.backend), mesh)
                        != BackendState::Invalid(InvalidRef::RefNotPermitted)
                })
                .filter(|m| {
                    matches!(
                        self.backend_state(route, BackendRead::lowered(&m.backend), mesh),
                        BackendState::Ok | BackendState::NoEndpoints
                    )
                })
                .map(|m| Mirror {
                    group: m.backend.group.to_string(),
                    kind: m.backend.kind.to_string(),
                    namespace: m.backend.namespace.to_string(),
                    name: m.backend.name.to_string(),
                    port: m.backend.port,
                    numerator: m.fraction.0,
                    denominator: m.fraction.1,
                })
                .collect()
        };
        let is_prefix_mod =
            |m: Option<&PathModifierIr>| matches!(m, Some(PathModifierIr::Prefix(_)));
        let needs_prefix = is_prefix_mod(rule.filters.redirect.as_ref().and_then(|r| r.path.as_ref()))
                || is_prefix_mod(rule.filters.rewrite.as_ref().and_then(|r| r.path.as_ref()))
                // backendRefs read in place have no filters
                || matches!(rule.backends, BackendsRead::Lowered(bs) if bs.iter().any(|b| {
                    is_prefix_mod(b.filters.rewrite.as_ref().and_then(|r| r.path.as_ref()))
                }));
        let prefix: Option<Box<str>> = if needs_prefix {
            rule.matches.single_prefix().map(Into::into)
        } else {
            None
        };
        // every unresolved reference of the rule, each with its own reason (a condition has
        // one reason, the first; its message lists them all)
        let mut problems: Vec<(&'static str, String)> = Vec::new();
        let mut refs: Vec<UnresolvedRef> = Vec::new();
        let mut note = |reason: &'static str, field: String, what: &str, message: String| {
            problems.push((reason, format!("rule {index}: {what}")));
            refs.push(UnresolvedRef::new(field, reason, message));
        };
        match &action {
            Action::Backends(start, len) => {
                let start = *start as usize;
                // empty (and unallocated) when every backend is valid
                let invalid: Vec<(usize, InvalidRef, u32)> = self
                    .backends
                    .get(start..start + *len as usize)
                    .unwrap_or(&[])
                    .iter()
                    .enumerate()
                    .filter_map(|(i, b)| match b.state {
                        BackendState::Invalid(r) => Some((i, r, b.target)),
                        _ => None,
                    })
                    .collect();
                for (i, r, target) in invalid {
                    let detail = self.invalid_detail(r, target);
                    note(
                        r.as_str(),
                        format!("spec.rules[{index}].backendRefs[{i}]"),
                        &format!("backendRefs[{i}]: {detail}"),
                        detail.clone(),
                    );
                    if let Ok(at) = u32::try_from(start + i) {
                        self.backend_problems.push((at, detail.into()));
                    }
                }
            }
            Action::Fail(RespondReason::UnsupportedFilter) => {
                let what = "ExtensionRef filters cannot be applied";
                note(
                    "InvalidKind",
                    format!("spec.rules[{index}].filters"),
                    what,
                    what.into(),
                )
            }
            _ => {}
        }
        for (i, m) in rule.filters.mirrors.iter().enumerate() {
            if let BackendState::Invalid(r) =
                self.backend_state(route, BackendRead::lowered(&m.backend), mesh)
            {
                let what = format!(
                    "RequestMirror {i}: backend {}/{} is not usable; the mirror is not configured",
                    m.backend.namespace, m.backend.name
                );
                note(
                    r.as_str(),
                    format!("spec.rules[{index}].filters"),
                    &what,
                    what.clone(),
                );
            }
        }
        let id = u32::try_from(self.rules.len()).ok()?;
        if let Some((reason, _)) = problems.first() {
            let message: Vec<&str> = problems.iter().map(|(_, m)| m.as_str()).collect();
            self.rule_problems
                .push((id, (reason, message.join("; "), std::mem::take(&mut refs))));
        }
        let name = match rule.name {
            None => 0,
            Some(n) => {
                let i = u32::try_from(self.rule_names.len()).ok()?;
                self.rule_names.push(n.into());
                i
            }
        };
        let extras = if rule.filters.request_headers.is_empty()
            && rule.filters.response_headers.is_empty()
            && rule.filters.rewrite.is_none()
            && mirrors.is_empty()
            && rule.filters.cors.is_none()
            && rule.timeouts.is_none()
            && rule.retry.is_none()
            && extensions.is_empty()
            && prefix.is_none()
        {
            0
        } else {
            self.push_extras(Extras {
                request_headers: rule.filters.request_headers.clone(),
                response_headers: rule.filters.response_headers.clone(),
                rewrite: rewrite(rule.filters),
                mirrors,
                cors: rule.filters.cors.clone(),
                timeouts: rule.timeouts.cloned(),
                retry: rule.retry.cloned(),
                extensions,
                prefix,
            })
        };
        self.rules.push(RuleEntry {
            route: route_id,
            index,
            name,
            extras,
            action,
        });
        Some(id)
    }
}
