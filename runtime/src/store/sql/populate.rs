//! The statements of the populate tree, one per populated edge per level, batched over
//! every parent row of the level: the rows related through an attribute (in Strapi's
//! order), the rows a `count` counts, a document's other locales, a dynamic zone's links
//! and each component type's rows. `read.rs` asks for them and assembles the entries.

use sea_query::{Alias, ExprTrait, Func, Order, Query as Sql, SelectStatement};

use super::{Builder, Scope, col};
use crate::query::{Conjunction, PopulateOptions};
use crate::schema::{Attribute, Schema};

impl Builder<'_> {
    /// `MAX(id)` of a schema's table: its size, estimated in one index step.
    pub fn size_estimate(&self, schema: &Schema) -> SelectStatement {
        let mut stmt = Sql::select();
        stmt.expr(Func::max(col("t", "id")))
            .from_as(Alias::new(&schema.layout.table), Alias::new("t"));
        stmt
    }

    /// The rows of `target` related to each of `ids` through `attr`, each followed by its
    /// owner's id, in Strapi's order (the populate's `sort`, else the link's order column,
    /// then the id); `None` when the attribute has no edge.
    pub fn related_select(
        &mut self,
        schema: &Schema,
        attr: &Attribute,
        ids: &[i64],
        target: &Schema,
        options: &PopulateOptions,
        scope: Scope,
    ) -> Option<SelectStatement> {
        let edge = self.edge_select(schema, attr, ids, target)?;
        let (mut s, t, j, order_col) = (
            edge.select,
            edge.target_alias,
            edge.link_alias,
            edge.order_column,
        );
        self.edge_terms(&mut s, attr, target, &t, options.filters.as_ref(), scope);
        if !options.sort.is_empty() {
            for (e, o) in self.order_by(target, &options.sort, &t, true) {
                s.order_by_expr(e, o);
            }
        } else {
            if let Some(oc) = &order_col {
                s.order_by_expr(col(&j, oc), Order::Asc);
            }
            s.order_by_expr(col(&t, "id"), Order::Asc);
        }
        Some(s)
    }

    /// The edge rows that a `count` populate counts (each followed by its owner's id);
    /// `None` when the attribute has no edge.
    pub fn count_select(
        &mut self,
        schema: &Schema,
        attr: &Attribute,
        ids: &[i64],
        target: &Schema,
        filters: Option<&Conjunction>,
        scope: Scope,
    ) -> Option<SelectStatement> {
        let edge = self.edge_select(schema, attr, ids, target)?;
        let mut inner = edge.select;
        self.edge_terms(&mut inner, attr, target, &edge.target_alias, filters, scope);
        Some(inner)
    }

    /// The other rows of the documents `documents` (sorted, distinct) in `target`: every
    /// locale's row except the parents' own (`parent_ids`), in the request's status, in
    /// the populate's `sort` or else by locale code, then id.
    ///
    /// **Decision:** the order without a `sort` is strata's, the same on every database.
    /// Strapi's statement (`@strapi/database` `populate/apply.js`, `oneToMany` through the
    /// `joinColumn` i18n declares) has no ORDER BY: the engine's plan decides, and it
    /// differs by engine, statistics and page. Locale order is what Strapi shows on
    /// SQLite (the `(document_id, locale, published_at)` index); the tests compare
    /// `localizations` with Strapi's answers as a set on every engine.
    pub fn localizations_select(
        &mut self,
        target: &Schema,
        documents: Vec<String>,
        parent_ids: Vec<i64>,
        options: &PopulateOptions,
        scope: Scope,
    ) -> SelectStatement {
        let t = self.alias();
        let mut s = Sql::select();
        self.select_columns(&mut s, target, &t);
        s.from_as(Alias::new(&target.layout.table), Alias::new(&t))
            .and_where(col(&t, "document_id").is_in(documents))
            .and_where(col(&t, "id").is_not_in(parent_ids));
        self.scope_terms(&mut s, target, scope, &t);
        if let Some(f) = &options.filters {
            let c = self.conjunction(target, f, &t);
            s.cond_where(c);
        }
        // A `sort` orders first; what it leaves tied keeps the order without one (locale,
        // then id), as the oracle answers (`oracle/sorted-joins.json`).
        for (e, o) in self.order_by(target, &options.sort, &t, false) {
            s.order_by_expr(e, o);
        }
        s.order_by_expr(col(&t, "locale"), Order::Asc)
            .order_by_expr(col(&t, "id"), Order::Asc);
        s
    }

    /// A dynamic zone's links (`entity_id`, `cmp_id`, `component_type`) of the entities
    /// `ids`, from the schema's `_cmps` table, in each entity's order.
    pub fn zone_links(&mut self, cmps_table: &str, field: &str, ids: &[i64]) -> SelectStatement {
        let j = self.alias();
        let mut s = Sql::select();
        s.expr(col(&j, "entity_id"))
            .expr(col(&j, "cmp_id"))
            .expr(col(&j, "component_type"))
            .from_as(Alias::new(cmps_table), Alias::new(&j))
            .and_where(col(&j, "entity_id").is_in(ids.iter().copied()))
            .and_where(
                self.dialect
                    .not_via_index(col(&j, "field"))
                    .eq(field.to_string()),
            )
            .order_by_expr(col(&j, "entity_id"), Order::Asc)
            .order_by_expr(col(&j, "order"), Order::Asc)
            .order_by_expr(col(&j, "id"), Order::Asc);
        s
    }

    /// The rows `ids` of a component type, with the populate's `filters`.
    pub fn component_rows(
        &mut self,
        component: &Schema,
        ids: Vec<i64>,
        filters: Option<&Conjunction>,
    ) -> SelectStatement {
        let t = self.alias();
        let mut s = Sql::select();
        self.select_columns(&mut s, component, &t);
        s.from_as(Alias::new(&component.layout.table), Alias::new(&t))
            .and_where(col(&t, "id").is_in(ids));
        if let Some(f) = filters {
            let c = self.conjunction(component, f, &t);
            s.cond_where(c);
        }
        s
    }
}
