//! `populate`: `*`, dot paths, lists, objects, `on` fragments of dynamic zones and `count`,
//! merged into one tree per level and checked against the caller's permissions.

use super::*;

/// A populate value that is not a tree: `*`, a boolean (`true`/`t`/`1`, `false`/`f`/`0`,
/// or null), or a string that is neither (an error naming it, wherever it stands).
enum Flag {
    Star,
    On,
    Off,
    Neither(String),
}

impl Flag {
    /// The flag a value is, or `None` for a list or an object.
    fn of(v: &QsValue) -> Option<Flag> {
        match v {
            QsValue::Null => Some(Flag::Off),
            QsValue::String(s) if s == "*" => Some(Flag::Star),
            QsValue::String(s) => Some(match values::strict_bool(s) {
                Some(true) => Flag::On,
                Some(false) => Flag::Off,
                None => Flag::Neither(s.clone()),
            }),
            QsValue::Array(_) | QsValue::Object(_) => None,
        }
    }
}

impl Parser<'_> {
    /// One option of a populated relation, component or zone fragment (`fields`,
    /// `filters`, `sort`, `populate`) into `node`; `false` when `name` is none of them.
    fn populate_option(
        &mut self,
        target: &Schema,
        name: &str,
        v: &QsValue,
        here: &Path,
        depth: usize,
        node: &mut PopNode,
    ) -> Result<bool, QueryError> {
        match name {
            // Strapi reports every problem inside populate as one of `populate`.
            "fields" => node.fields = self.fields(target, v).map_err(QueryError::in_populate)?,
            "filters" => {
                node.filters = self
                    .root_filters(target, v)
                    .map_err(QueryError::in_populate)?
            }
            "sort" => node.sort = self.sort(target, v, Param::Populate, true)?,
            "populate" => self.populate_into(target, v, here, depth + 1, &mut node.populate)?,
            _ => return Ok(false),
        }
        Ok(true)
    }

    pub(super) fn populate_root(
        &mut self,
        schema: &Schema,
        v: &QsValue,
    ) -> Result<Populate, QueryError> {
        let mut tree = PopTree::default();
        self.populate_into(schema, v, &Path::default(), 0, &mut tree)?;
        Ok(self.finish(schema, tree))
    }

    fn check_populate_depth(&self, depth: usize) -> Result<(), QueryError> {
        within(
            depth,
            self.config.limits.max_populate_depth,
            "maxPopulateDepth",
            |max| format!("populate is nested more than {max} levels deep"),
        )
    }

    /// Adds a populate value (string, list or object) at one level into `tree`.
    fn populate_into(
        &mut self,
        schema: &Schema,
        v: &QsValue,
        path: &Path,
        depth: usize,
        tree: &mut PopTree,
    ) -> Result<(), QueryError> {
        self.check_populate_depth(depth)?;
        match v {
            QsValue::Null => Ok(()),
            QsValue::String(s) => {
                for item in s.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                    if item == "*" {
                        self.populate_all(schema, tree);
                    } else {
                        let segments: Vec<&str> = item.split('.').collect();
                        self.populate_dot_path(schema, &segments, path, depth, tree)?;
                    }
                }
                Ok(())
            }
            QsValue::Array(items) => {
                for item in items {
                    match item {
                        QsValue::String(_) | QsValue::Null => {
                            self.populate_into(schema, item, path, depth, tree)?
                        }
                        _ => {
                            return Err(QueryError::InvalidValue {
                                key: "populate".into(),
                                path: path.get(),
                                message: "array entries must be attribute names or dot paths"
                                    .into(),
                                param: Param::Populate,
                            });
                        }
                    }
                }
                Ok(())
            }
            QsValue::Object(map) => {
                if let Some(n) = too_many_populate_entries(map) {
                    return Err(QueryError::InvalidParam {
                        message: format!(
                            "Too many populate entries ({n}). The maximum number of populate entries when using array notation is 100. Consider using object notation (populate[field]=true), nested population, or reducing the number of fields."
                        ),
                        param: Param::Populate,
                    });
                }
                if let Some(items) = numeric_object_as_list(map) {
                    return self.populate_into(schema, &QsValue::Array(items), path, depth, tree);
                }
                // Strapi checks a level's keys for private attributes after its other
                // checks (`validatePopulate` pipes `throwPrivate` after the main traversal,
                // which validates nested `populate` levels as it meets them), naming the
                // first private one by its attribute path.
                let mut private = None;
                for (key, val) in map {
                    if private.is_none() && schema.attribute(key).is_some_and(|a| a.private) {
                        let at = path.join(key).get();
                        private = Some(QueryError::invalid_key(key, at, Param::Populate));
                    }
                    self.populate_object_entry(schema, key, val, path, depth, tree)?;
                }
                private.map_or(Ok(()), Err)
            }
        }
    }

    /// `populate=*` at one level: every relation the caller may find, media, components,
    /// zones, and `localizations` on localized types; each with its scalar fields only.
    fn populate_all(&self, schema: &Schema, tree: &mut PopTree) {
        for attr in &schema.attributes {
            if attr.private {
                continue;
            }
            match &attr.kind {
                AttributeKind::Relation(rel) => {
                    if let Some(t) = rel.target
                        && !rel.kind.is_morph()
                        && self.permissions.can_find(t)
                    {
                        tree.entry(PopulateKey::Attr(attr.id), t);
                    }
                }
                AttributeKind::Component(c) => {
                    tree.entry(PopulateKey::Attr(attr.id), c.component);
                }
                AttributeKind::Media(_) => {
                    if let Some(f) = self.model.upload_file() {
                        tree.entry(PopulateKey::Attr(attr.id), f.id);
                    }
                }
                AttributeKind::DynamicZone(_) => {
                    let every = self.every_component();
                    let node = tree.zone(PopulateKey::Attr(attr.id));
                    for c in every {
                        node.zone_all.entry(c).or_default();
                    }
                }
                AttributeKind::Scalar(_) => {}
            }
        }
        if schema.is_content_type() && schema.localized {
            tree.entry(PopulateKey::Localizations, schema.id);
        }
    }

    /// The component types a zone populated without `on` shows: every component, not
    /// only the zone's members. A write may put an item of any component in a zone (the
    /// validator and the GraphQL plugin's `parseData` take any), and Strapi's populate
    /// loads every item the zone's `_cmps` rows hold; `on` lists the types it shows.
    fn every_component(&self) -> Vec<SchemaId> {
        self.model.components().map(|c| c.id).collect()
    }

    /// Resolves a populate key on `schema`: the populate key, the target schema, and the attribute.
    fn populate_key<'s>(
        &self,
        schema: &'s Schema,
        key: &str,
        err_path: Option<String>,
    ) -> Result<(PopulateKey, Option<SchemaId>, Option<&'s Attribute>), QueryError> {
        if key == "localizations" && schema.is_content_type() && schema.localized {
            return Ok((PopulateKey::Localizations, Some(schema.id), None));
        }
        let Some(attr) = schema.attribute(key) else {
            // The creator fields are private relations of every content type in Strapi
            // (strata's model leaves them out): rejected like a private attribute.
            let creator = matches!(key, "createdBy" | "updatedBy") && schema.is_content_type();
            let path = if creator {
                Some(key.to_string())
            } else {
                err_path
            };
            return Err(QueryError::invalid_key(key, path, Param::Populate));
        };
        let target = match &attr.kind {
            AttributeKind::Relation(rel) if !rel.kind.is_morph() => rel.target,
            AttributeKind::Relation(_) => None,
            AttributeKind::Component(c) => Some(c.component),
            AttributeKind::Media(_) => self.model.upload_file().map(|f| f.id),
            AttributeKind::DynamicZone(_) => Some(schema.id),
            AttributeKind::Scalar(_) => None,
        };
        if target.is_none() {
            return Err(QueryError::invalid_key(
                key,
                Some(key.to_string()),
                Param::Populate,
            ));
        }
        Ok((PopulateKey::Attr(attr.id), target, Some(attr)))
    }

    fn relation_allowed(&self, attr: Option<&Attribute>, target: SchemaId) -> bool {
        match attr.map(|a| &a.kind) {
            Some(AttributeKind::Relation(_)) => self.permissions.can_find(target),
            _ => true,
        }
    }

    fn populate_dot_path(
        &mut self,
        schema: &Schema,
        segments: &[&str],
        path: &Path,
        depth: usize,
        tree: &mut PopTree,
    ) -> Result<(), QueryError> {
        self.check_populate_depth(depth)?;
        let Some((first, rest)) = segments.split_first() else {
            return Ok(());
        };
        let full = path.join(&segments.join("."));
        let (key, target, attr) = self.populate_key(schema, first, full.get())?;
        if attr.is_some_and(|a| a.private) {
            return Err(QueryError::invalid_key(
                *first,
                Some((*first).to_string()),
                Param::Populate,
            ));
        }
        let Some(target) = target else { return Ok(()) };
        if !self.relation_allowed(attr, target) {
            return Ok(()); // dropped silently, as Strapi's sanitizer does
        }
        if let Some(AttributeKind::DynamicZone(z)) = attr.map(|a| &a.kind) {
            let node = tree.zone(key);
            for c in &z.components {
                node.zone_all.entry(*c).or_default();
            }
            if let Some((next, _)) = rest.split_first() {
                // The next segment must be an attribute of at least one component of the zone.
                let mut found = false;
                for c in z.components.clone() {
                    let cs = self.schema(c);
                    if cs.attribute(next).is_some() {
                        found = true;
                        let sub = tree.zone(key).zone_all.entry(c).or_default();
                        self.populate_dot_path(
                            cs,
                            rest,
                            &path.join(first),
                            depth + 1,
                            &mut sub.populate,
                        )?;
                    }
                }
                if !found {
                    return Err(QueryError::invalid_key(*next, full.get(), Param::Populate));
                }
            }
            return Ok(());
        }
        if !rest.is_empty() && matches!(attr.map(|a| &a.kind), Some(AttributeKind::Media(_))) {
            // Media cannot be followed.
            return Err(QueryError::invalid_key(
                *first,
                Some((*first).to_string()),
                Param::Populate,
            ));
        }
        let node = tree.entry(key, target);
        if !rest.is_empty() {
            let ts = self.schema(target);
            let mut sub = std::mem::take(&mut node.populate);
            self.populate_dot_path(ts, rest, &path.join(first), depth + 1, &mut sub)?;
            tree.entry(key, target).populate = sub;
        }
        Ok(())
    }

    fn populate_object_entry(
        &mut self,
        schema: &Schema,
        key: &str,
        val: &QsValue,
        path: &Path,
        depth: usize,
        tree: &mut PopTree,
    ) -> Result<(), QueryError> {
        let (pkey, target, attr) = self.populate_key(schema, key, path.get())?;
        let Some(target) = target else { return Ok(()) };
        let here = path.join(key);
        let is_zone = matches!(attr.map(|a| &a.kind), Some(AttributeKind::DynamicZone(_)));
        // `count` counts related rows and components (single or repeatable). On media and
        // on `localizations` Strapi ignores it and populates with the other options:
        // `localizations` is a join column (`document_id`), and `@strapi/database`'s
        // populate of a join column has no count.
        let countable = matches!(
            attr.map(|a| &a.kind),
            Some(AttributeKind::Relation(_) | AttributeKind::Component(_))
        );
        if is_zone {
            return self.populate_zone(schema, attr, pkey, val, &here, depth, tree);
        }
        let allowed = self.relation_allowed(attr, target);
        if let Some(flag) = Flag::of(val) {
            return match flag {
                Flag::Star | Flag::On => {
                    if allowed {
                        tree.entry(pkey, target);
                    }
                    Ok(())
                }
                Flag::Off => Ok(()),
                Flag::Neither(s) => Err(QueryError::invalid_key(s, here.get(), Param::Populate)),
            };
        }
        match val {
            QsValue::String(_) | QsValue::Null => Ok(()),
            QsValue::Array(_) => Err(QueryError::InvalidValue {
                key: key.to_string(),
                path: here.get(),
                message: "expected true, false or an object of populate options".into(),
                param: Param::Populate,
            }),
            QsValue::Object(opts) => {
                let ts = self.schema(target);
                let mut node = PopNode::default();
                for (k, v) in opts {
                    if self.populate_option(ts, k, v, &here, depth, &mut node)? {
                        continue;
                    }
                    match k.as_str() {
                        "count" => {
                            let flag = v.as_str().and_then(values::strict_bool);
                            match flag {
                                Some(b) => node.count = b && countable,
                                None => {
                                    return Err(QueryError::invalid_key(
                                        k.clone(),
                                        here.get(),
                                        Param::Populate,
                                    ));
                                }
                            }
                        }
                        "on" => {
                            return Err(QueryError::Invalid(format!(
                                "Using fragments is not permitted to populate \"{key}\" in \"{}\"",
                                schema.uid
                            )));
                        }
                        other => {
                            // An attribute of the target named without `populate`: its own path.
                            let p = if ts.attribute(other).is_some() {
                                here.join(other)
                            } else {
                                here.clone()
                            };
                            return Err(QueryError::invalid_key(other, p.get(), Param::Populate));
                        }
                    }
                }
                if allowed {
                    let existing = tree.entry(pkey, target);
                    existing.merge(node);
                }
                Ok(())
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn populate_zone(
        &mut self,
        schema: &Schema,
        attr: Option<&Attribute>,
        pkey: PopulateKey,
        val: &QsValue,
        here: &Path,
        depth: usize,
        tree: &mut PopTree,
    ) -> Result<(), QueryError> {
        let Some(attr) = attr else { return Ok(()) };
        let AttributeKind::DynamicZone(zone) = &attr.kind else {
            return Ok(());
        };
        let nested_error = |found: String| {
            QueryError::Invalid(format!(
                "Invalid nested populate for {}.{} ({}). Expected a fragment (\"on\") or \"count\" but found {found}",
                schema.singular_name, attr.name, schema.uid
            ))
        };
        if let Some(flag) = Flag::of(val) {
            return match flag {
                Flag::Star => Err(nested_error("\"*\"".into())),
                Flag::On => {
                    let every = self.every_component();
                    let node = tree.zone(pkey);
                    for c in every {
                        node.zone_all.entry(c).or_default();
                    }
                    Ok(())
                }
                Flag::Off => Ok(()),
                Flag::Neither(s) => Err(QueryError::invalid_key(s, here.get(), Param::Populate)),
            };
        }
        match val {
            QsValue::String(_) | QsValue::Null => Ok(()),
            QsValue::Array(_) => Err(nested_error(qs::QsValue::to_json(val))),
            QsValue::Object(opts) => {
                let mut on: Option<IndexMap<SchemaId, PopNode>> = None;
                let mut populate_star = false;
                for (k, v) in opts {
                    match k.as_str() {
                        "on" => {
                            let QsValue::Object(frags) = v else {
                                return Err(nested_error(v.to_json()));
                            };
                            let mut map = IndexMap::new();
                            for (uid, fv) in frags {
                                let here_on = here.join("on").join(uid);
                                let Some(cid) = zone
                                    .components
                                    .iter()
                                    .copied()
                                    .find(|c| self.schema(*c).uid.as_str() == uid)
                                else {
                                    return Err(QueryError::invalid_key(
                                        uid.clone(),
                                        here_on.get(),
                                        Param::Populate,
                                    ));
                                };
                                let cs = self.schema(cid);
                                let mut node = PopNode::default();
                                match Flag::of(fv) {
                                    Some(Flag::On | Flag::Star) => {}
                                    Some(Flag::Off) => continue,
                                    Some(Flag::Neither(s)) => {
                                        return Err(QueryError::invalid_key(
                                            s,
                                            here_on.get(),
                                            Param::Populate,
                                        ));
                                    }
                                    None => {}
                                }
                                match fv {
                                    QsValue::Object(fo) => {
                                        for (fk, fvv) in fo {
                                            if !self.populate_option(
                                                cs, fk, fvv, &here_on, depth, &mut node,
                                            )? {
                                                return Err(QueryError::invalid_key(
                                                    fk.as_str(),
                                                    here_on.get(),
                                                    Param::Populate,
                                                ));
                                            }
                                        }
                                    }
                                    QsValue::String(_) => {}
                                    QsValue::Null => {}
                                    QsValue::Array(_) => {
                                        return Err(QueryError::invalid_key(
                                            uid.clone(),
                                            here_on.get(),
                                            Param::Populate,
                                        ));
                                    }
                                }
                                map.insert(cid, node);
                            }
                            on = Some(map);
                        }
                        "populate" => {
                            if v.as_str() != Some("*") {
                                return Err(QueryError::Invalid(format!(
                                    "Invalid nested population query detected. When using 'populate' within polymorphic structures, its value must be '*' to indicate all second level links. Specific field targeting is not supported here. Consider using the fragment API for more granular population control. ({}.{})",
                                    schema.singular_name, attr.name
                                )));
                            }
                            populate_star = true;
                        }
                        // `count` on a zone is ignored by Strapi's REST API: it just populates.
                        "count" => {}
                        _ => return Err(nested_error(val.to_json())),
                    }
                }
                let node = tree.zone(pkey);
                match on {
                    Some(map) => {
                        for (cid, n) in map {
                            node.zone_on.entry(cid).or_default().merge(n);
                        }
                    }
                    None => {
                        for c in self.every_component() {
                            let sub = node.zone_all.entry(c).or_default();
                            if populate_star {
                                let cs = self.schema(c);
                                self.populate_all(cs, &mut sub.populate);
                            }
                        }
                    }
                }
                if populate_star && node.zone_on.is_empty() {
                    // handled above
                } else if populate_star {
                    let ids: Vec<SchemaId> = node.zone_on.keys().copied().collect();
                    for c in ids {
                        let cs = self.schema(c);
                        if let Some(n) = tree.zone(pkey).zone_on.get_mut(&c) {
                            self.populate_all(cs, &mut n.populate);
                        }
                    }
                }
                Ok(())
            }
        }
    }

    /// Turns the merged tree into the canonical [`Populate`].
    fn finish(&self, schema: &Schema, tree: PopTree) -> Populate {
        let mut entries: Vec<PopulateEntry> = Vec::new();
        for (key, node) in tree.nodes {
            let kind = if node.is_zone {
                // `on` wins over the all-types forms: unlisted types are omitted.
                let map = if node.zone_on.is_empty() {
                    node.zone_all
                } else {
                    node.zone_on
                };
                let mut list: Vec<(SchemaId, PopulateOptions)> = map
                    .into_iter()
                    .map(|(c, n)| (c, self.finish_options(self.schema(c), n)))
                    .collect();
                list.sort_by_key(|(c, _)| *c);
                PopulateKind::Zone(list)
            } else if node.count {
                PopulateKind::Count {
                    target: node.target,
                    filters: node.filters,
                }
            } else {
                let ts = self.schema(node.target);
                PopulateKind::Rows {
                    target: node.target,
                    options: self.finish_options(ts, node),
                }
            };
            entries.push(PopulateEntry { key, kind });
        }
        let _ = schema;
        entries.sort_by_key(|e| e.key);
        Populate(entries)
    }

    fn finish_options(&self, schema: &Schema, node: PopNode) -> PopulateOptions {
        PopulateOptions {
            fields: node.fields,
            filters: node.filters,
            sort: node.sort,
            populate: self.finish(schema, node.populate),
        }
    }

    // ------------------------------------------------------- pagination & co
}

/// Strapi's "too many populate entries" rule: more than 100 consecutive numeric keys
/// (from 0) holding strings.
fn too_many_populate_entries(m: &QsMap) -> Option<usize> {
    let mut n = 0;
    while let Some(QsValue::String(_)) = m.get(n.to_string().as_str()) {
        n += 1;
    }
    (n > 100).then_some(n)
}

/// The populate tree while it is being merged (strings, arrays and objects may name the
/// same attribute several times).
#[derive(Default)]
struct PopTree {
    nodes: Vec<(PopulateKey, PopNode)>,
}

#[derive(Default)]
struct PopNode {
    target: SchemaId,
    fields: Option<Vec<FieldRef>>,
    filters: Option<Conjunction>,
    sort: Vec<SortKey>,
    populate: PopTree,
    count: bool,
    is_zone: bool,
    zone_all: IndexMap<SchemaId, PopNode>,
    zone_on: IndexMap<SchemaId, PopNode>,
}

impl PopTree {
    fn entry(&mut self, key: PopulateKey, target: SchemaId) -> &mut PopNode {
        let pos = match self.nodes.iter().position(|(k, _)| *k == key) {
            Some(p) => p,
            None => {
                self.nodes.push((
                    key,
                    PopNode {
                        target,
                        ..PopNode::default()
                    },
                ));
                self.nodes.len() - 1
            }
        };
        &mut self.nodes[pos].1
    }

    fn zone(&mut self, key: PopulateKey) -> &mut PopNode {
        let node = self.entry(key, SchemaId::default());
        node.is_zone = true;
        node
    }
}

impl PopNode {
    fn merge(&mut self, other: PopNode) {
        if other.fields.is_some() {
            self.fields = other.fields;
        }
        if other.filters.is_some() {
            self.filters = other.filters;
        }
        if !other.sort.is_empty() {
            self.sort = other.sort;
        }
        self.count |= other.count;
        for (k, n) in other.populate.nodes {
            let target = n.target;
            let is_zone = n.is_zone;
            let e = self.populate.entry(k, target);
            e.is_zone |= is_zone;
            e.merge(n);
        }
        for (c, n) in other.zone_all {
            self.zone_all.entry(c).or_default().merge(n);
        }
        for (c, n) in other.zone_on {
            self.zone_on.entry(c).or_default().merge(n);
        }
    }
}
