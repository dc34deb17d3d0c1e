//! The build's growing arrays: interned strings, method names, the names buffer, backend
//! targets, extras and candidates. Each `push_*` returns the index the compiled entries keep.

use std::sync::Arc;

use super::read::BackendRead;
use crate::cond::Cond;
use crate::index::same_bytes;
use crate::precedence::PrecedenceKey;
use crate::table::{Cand, Extras, NameRef, ServiceInfo, Target};

use super::Builder;

/// Appends a name to a names buffer.
pub(super) fn push_name(names: &mut String, s: &str) -> NameRef {
    let start = u32::try_from(names.len()).unwrap_or(u32::MAX);
    names.push_str(s);
    NameRef(start, u32::try_from(s.len()).unwrap_or(0))
}

/// (group, kind, namespace, name, port) of a backend target, borrowed from the input: a
/// repeated backendRef is found without interning its four strings again. Hashes only the
/// name, namespace and port (group and kind are nearly always `""`/`Service`); compares all.
#[derive(Debug, Clone, Copy)]
pub(super) struct TargetKey<'i> {
    group: &'i str,
    kind: &'i str,
    namespace: &'i str,
    name: &'i str,
    port: Option<u16>,
}

impl std::hash::Hash for TargetKey<'_> {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        h.write(self.name.as_bytes());
        h.write(self.namespace.as_bytes());
        h.write_u32(self.port.map_or(u32::MAX, u32::from));
    }
}

impl PartialEq for TargetKey<'_> {
    fn eq(&self, o: &Self) -> bool {
        same_bytes(self.name.as_bytes(), o.name.as_bytes())
            && self.port == o.port
            && same_bytes(self.namespace.as_bytes(), o.namespace.as_bytes())
            && same_bytes(self.kind.as_bytes(), o.kind.as_bytes())
            && same_bytes(self.group.as_bytes(), o.group.as_bytes())
    }
}

impl Eq for TargetKey<'_> {}

impl<'i> Builder<'i> {
    /// A Service's or Gateway's namespace (interned) and name (in the names buffer).
    pub(super) fn parent_info(&mut self, namespace: &str, name: &str) -> ServiceInfo {
        ServiceInfo {
            namespace: self.intern(namespace),
            name: push_name(&mut self.names, name),
        }
    }

    pub(super) fn intern(&mut self, v: &str) -> Arc<str> {
        if let Some(a) = self.strings.get(v) {
            return Arc::clone(a);
        }
        let a: Arc<str> = Arc::from(v);
        self.strings.insert(Arc::clone(&a));
        a
    }

    pub(super) fn method_index(&mut self, m: Option<&str>) -> u16 {
        let Some(m) = m else { return 0 };
        if let Some(i) = self.methods.iter().position(|x| **x == *m) {
            return u16::try_from(i).unwrap_or(0);
        }
        self.methods.push(m.into());
        u16::try_from(self.methods.len() - 1).unwrap_or(0)
    }

    pub(super) fn target(&mut self, b: BackendRead<'i>) -> u32 {
        let key = TargetKey {
            group: b.group,
            kind: b.kind,
            namespace: b.namespace,
            name: b.name,
            port: b.port,
        };
        if let Some(id) = self.target_ids.get(&key) {
            return *id;
        }
        let id = u32::try_from(self.targets.len()).unwrap_or(u32::MAX);
        let tls = self.tls_slot(b.group, b.kind, b.namespace, b.name, b.port);
        let target = Target {
            group: self.intern(b.group),
            kind: self.intern(b.kind),
            namespace: self.intern(b.namespace),
            name: self.intern(b.name),
            port: b.port,
            tls,
        };
        self.targets.push(target);
        self.target_states.push([None; 5]);
        self.target_ids.insert(key, id);
        id
    }

    /// Stores a non-empty set of extras and returns its index (0 for an empty one).
    pub(super) fn push_extras(&mut self, e: Extras) -> u32 {
        if e.is_empty() {
            return 0;
        }
        let i = u32::try_from(self.extras.len()).unwrap_or(0);
        self.extras.push(e);
        i
    }

    /// Appends a candidate and returns its id (`None` past `u32::MAX` candidates).
    #[inline]
    pub(super) fn push_cand(
        &mut self,
        key: PrecedenceKey,
        (rule, match_index): (u32, u16),
        method: u16,
        cond: Cond,
    ) -> Option<u32> {
        let cid = u32::try_from(self.cands.len()).ok()?;
        // `cond == Cond::default()`, field by field (no slices compared; exhaustive, so a
        // new field must be added here)
        let Cond {
            path_regex,
            service_regex,
            method_regex,
            headers,
            query,
        } = &cond;
        let default = path_regex.is_none()
            && service_regex.is_none()
            && method_regex.is_none()
            && headers.is_empty()
            && query.is_empty();
        let cond = if default {
            0
        } else {
            let i = u32::try_from(self.conds.len()).ok()?;
            self.conds.push(cond);
            i
        };
        self.cands.push(Cand {
            rule,
            match_index,
            method,
            cond,
        });
        self.keys.push(key);
        Some(cid)
    }
}
