//! The typed builders (`strata::typed`) against the HTTP door: every typed query equals
//! what `parse_query` returns for the natural query string, and a property test checks
//! that any builder query printed as a string parses back to the same `Query`.
//!
//! The types are the code strata-codegen generates for the blog schemas.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[allow(dead_code)]
mod blog {
    include!("generated/blog.rs");
}

#[allow(dead_code)]
mod edge {
    include!("generated/edge.rs");
}

use blog::*;
use proptest::prelude::*;
use strata::query::{Permissions, PublicationFilter, Query, QueryConfig, Status, parse_query};
use strata::typed::{
    BigInt, ContentType, Date, DateTime, Decimal, Filter, Time, Typed, TypedQuery,
};

/// What the HTTP parser makes of `raw` on `T`, with every type findable.
fn http<T: ContentType>(raw: &str) -> Query {
    let m = T::model();
    parse_query(
        raw,
        m,
        T::schema_id(),
        &Permissions::all(m),
        &QueryConfig::default(),
    )
    .unwrap_or_else(|e| panic!("{raw}: {e:?}"))
}

/// The printed query parses back to the same value.
fn round_trips<T: ContentType + Typed>(q: &TypedQuery<T>) {
    let s = q.to_query_string();
    let m = T::model();
    let back = parse_query(
        &s,
        m,
        T::schema_id(),
        &Permissions::all(m),
        &QueryConfig::default(),
    );
    match back {
        Ok(back) => assert_eq!(&back, q.query(), "{s}"),
        Err(e) => panic!("{s}: {e:?}"),
    }
}

/// The typed query is what the HTTP parser makes of `raw`, and it round-trips.
#[track_caller]
fn same<T: ContentType + Typed>(q: TypedQuery<T>, raw: &str) {
    assert_eq!(q.query(), &http::<T>(raw), "typed query vs `{raw}`");
    round_trips(&q);
}

/// [`same`] for a query whose zones are populated without `on`: REST's shows items of
/// every component, the typed one the zone's members (its item types), by `on`.
fn same_but_zone_members<T: ContentType + Typed>(q: TypedQuery<T>, raw: &str) {
    let mut expected = http::<T>(raw);
    let schema = T::model().schema(T::schema_id());
    for entry in &mut expected.populate.0 {
        let (strata::query::PopulateKey::Attr(a), strata::query::PopulateKind::Zone(list)) =
            (entry.key, &mut entry.kind)
        else {
            continue;
        };
        if let Some(strata::schema::AttributeKind::DynamicZone(z)) =
            schema.attributes.get(a.index()).map(|at| &at.kind)
        {
            list.retain(|(c, _)| z.components.contains(c));
        }
    }
    assert_eq!(
        q.query(),
        &expected,
        "typed query vs `{raw}`, zone members only"
    );
    round_trips(&q);
}

fn filtered(f: Filter<Article>) -> TypedQuery<Article> {
    article::query().filter(f)
}

// ---------------------------------------------------------------------------- filters

#[test]
fn text_operators() {
    let f = article::filter;
    for (typed, raw) in [
        (f().title().eq("Rust"), "filters[title][$eq]=Rust"),
        (f().title().eq(String::from("Rust")), "filters[title]=Rust"),
        (f().title().ne("Rust"), "filters[title][$ne]=Rust"),
        (f().title().eqi("rust"), "filters[title][$eqi]=rust"),
        (f().title().nei("rust"), "filters[title][$nei]=rust"),
        (f().title().contains("ru"), "filters[title][$contains]=ru"),
        (
            f().title().not_contains("ru"),
            "filters[title][$notContains]=ru",
        ),
        (f().title().containsi("RU"), "filters[title][$containsi]=RU"),
        (
            f().title().not_containsi("RU"),
            "filters[title][$notContainsi]=RU",
        ),
        (
            f().title().starts_with("R"),
            "filters[title][$startsWith]=R",
        ),
        (
            f().title().starts_withi('r'),
            "filters[title][$startsWithi]=r",
        ),
        (f().title().ends_with("t"), "filters[title][$endsWith]=t"),
        (f().title().ends_withi("T"), "filters[title][$endsWithi]=T"),
        (
            f().title().in_(["a", "b"]),
            "filters[title][$in][0]=a&filters[title][$in][1]=b",
        ),
        (
            f().title().in_(["a", "b"]),
            "filters[title][0]=a&filters[title][1]=b",
        ),
        (f().title().not_in(["a"]), "filters[title][$notIn]=a"),
        (f().title().null(), "filters[title][$null]=true"),
        (f().title().not_null(), "filters[title][$notNull]=true"),
        (f().title().not_null(), "filters[title][$null]=false"),
        (f().slug().eq("a-b"), "filters[slug][$eq]=a-b"),
        (
            f().contact_email().ends_with("@x.io"),
            "filters[contactEmail][$endsWith]=@x.io",
        ),
        (f().body().containsi("x"), "filters[body][$containsi]=x"),
        (f().document_id().eq("abc"), "filters[documentId][$eq]=abc"),
        (f().locale().eq("fr"), "filters[locale][$eq]=fr"),
        (
            f().title().eq("a&b=c [d] é%+"),
            "filters[title][$eq]=a%26b%3Dc%20%5Bd%5D%20%C3%A9%25%2B",
        ),
        (f().title().eq(""), "filters[title][$eq]="),
    ] {
        same(filtered(typed), raw);
    }
}

#[test]
fn number_date_and_boolean_operators() {
    let f = article::filter;
    for (typed, raw) in [
        (f().views().eq(3), "filters[views][$eq]=3"),
        (f().views().ne(3_u8), "filters[views][$ne]=3"),
        (f().views().lt(-3), "filters[views][$lt]=-3"),
        (f().views().lte(3_i64), "filters[views][$lte]=3.0"),
        (f().views().gt(3), "filters[views][$gt]=0x3"),
        (f().views().gte(3), "filters[views][$gte]=3"),
        (
            f().views().between(1, 10),
            "filters[views][$between][0]=1&filters[views][$between][1]=10",
        ),
        (
            f().views().in_([1, 2]),
            "filters[views][$in][0]=1&filters[views][$in][1]=2",
        ),
        (f().views().not_in([7]), "filters[views][$notIn][0]=7"),
        (f().views().null(), "filters[views][$null]=1"),
        (f().rating().gt(4.5), "filters[rating][$gt]=4.5"),
        (f().rating().lt(5), "filters[rating][$lt]=5"),
        (f().price().gte(9.99), "filters[price][$gte]=9.99"),
        (
            f().price()
                .lte(Decimal(serde_json::Number::from_f64(20.5).unwrap())),
            "filters[price][$lte]=20.5",
        ),
        (
            f().word_count().gt(9_007_199_254_740_993_i64),
            "filters[wordCount][$gt]=9007199254740993",
        ),
        (
            f().word_count().eq(BigInt("-12".into())),
            "filters[wordCount][$eq]=-12",
        ),
        (f().featured().eq(true), "filters[featured][$eq]=true"),
        (f().featured().ne(false), "filters[featured][$ne]=false"),
        (
            f().publish_date().gte(Date("2024-01-15".into())),
            "filters[publishDate][$gte]=2024-01-15",
        ),
        (
            f().publish_date().lt("2024-01-15T10:00:00Z"),
            "filters[publishDate][$lt]=2024-01-15",
        ),
        (
            f().start_time().gt(Time("10:30:00".into())),
            "filters[startTime][$gt]=10:30:00.000",
        ),
        (
            f().event_at()
                .lt(DateTime("2024-01-15T10:30:00.000Z".into())),
            "filters[eventAt][$lt]=2024-01-15T10:30:00Z",
        ),
        (
            f().event_at().gt(1_705_314_600_000_i64),
            "filters[eventAt][$gt]=2024-01-15T10:30:00.000Z",
        ),
        (
            f().created_at().between("2024-01-01", "2025-01-01"),
            "filters[createdAt][$between][0]=2024-01-01&filters[createdAt][$between][1]=2025-01-01",
        ),
        (
            f().published_at().null(),
            "filters[publishedAt][$null]=true",
        ),
        (
            f().id().in_([1, 2, 3]),
            "filters[id][$in]=1&filters[id][$in]=2&filters[id][$in]=3",
        ),
        (f().kind().eq(ArticleKind::News), "filters[kind][$eq]=news"),
        (
            f().kind().in_([ArticleKind::News, ArticleKind::Tutorial]),
            "filters[kind][$in][0]=news&filters[kind][$in][1]=tutorial",
        ),
        (f().kind().containsi("tut"), "filters[kind][$containsi]=tut"),
        (
            f().metadata().not_null(),
            "filters[metadata][$notNull]=true",
        ),
        (f().content().null(), "filters[content][$null]=true"),
    ] {
        same(filtered(typed), raw);
    }
}

#[test]
fn paths_through_relations_media_and_components() {
    let f = article::filter;
    for (typed, raw) in [
        (
            f().author().name().eqi("ada"),
            "filters[author][name][$eqi]=ada",
        ),
        (
            f().author().mentor().name().eq("x"),
            "filters[author][mentor][name][$eq]=x",
        ),
        (f().author().id().eq(3), "filters[author][id][$eq]=3"),
        (f().author().id().eq(3), "filters[author]=3"),
        (
            f().tags().name().in_(["rust"]),
            "filters[tags][name][$in][0]=rust",
        ),
        (
            f().category().parent().slug().eq("a"),
            "filters[category][parent][slug]=a",
        ),
        (
            f().cover().mime().starts_with("image/"),
            "filters[cover][mime][$startsWith]=image/",
        ),
        (
            f().gallery().size().gt(100),
            "filters[gallery][size][$gt]=100",
        ),
        (
            f().seo().meta_title().contains("x"),
            "filters[seo][metaTitle][$contains]=x",
        ),
        (
            f().seo()
                .social()
                .network()
                .eq(SharedSocialLinkNetwork::Linkedin),
            "filters[seo][social][network][$eq]=linkedin",
        ),
        (
            f().faq().question().null(),
            "filters[faq][question][$null]=true",
        ),
        (
            f().editor().username().eq("root"),
            "filters[editor][username]=root",
        ),
        (f().author().null(), "filters[author][$null]=true"),
        (f().author().not_null(), "filters[author][$notNull]=true"),
        (f().seo().null(), "filters[seo][$null]=true"),
        (
            f().author().mentor().null(),
            "filters[author][mentor][$null]=true",
        ),
        (
            f().tags()
                .matches(|t| t.name().eq("rust").and(t.id().gt(2))),
            "filters[tags][$and][0][name][$eq]=rust&filters[tags][$and][1][id][$gt]=2",
        ),
        (
            f().author().matches(|a| a.name().eq("x").not()),
            "filters[author][$and][0][$not][name][$eq]=x",
        ),
        (
            f().localizations().matches(|a| a.title().eq("Bonjour")),
            "filters[localizations][title][$eq]=Bonjour",
        ),
        (
            f().localizations()
                .matches(|a| a.author().name().eq("x") | a.locale().eq("fr")),
            "filters[localizations][$or][0][author][name]=x&filters[localizations][$or][1][locale]=fr",
        ),
        (
            f().author()
                .matches(|a| a.name().eq("x").or(a.email().null())),
            "filters[author][$or][0][name]=x&filters[author][$or][1][email][$null]=true",
        ),
    ] {
        same(filtered(typed), raw);
    }
}

#[test]
fn combinators() {
    let f = article::filter;
    same(
        filtered(
            f().title()
                .contains("rust")
                .and(f().author().name().eqi("ada")),
        ),
        "filters[$and][0][title][$contains]=rust&filters[$and][1][author][name][$eqi]=ada",
    );
    same(
        filtered(
            f().title()
                .eq("a")
                .and(f().views().gt(1))
                .and(f().featured().eq(true)),
        ),
        "filters[$and][0][title]=a&filters[$and][1][views][$gt]=1&filters[$and][2][featured]=true",
    );
    same(
        filtered(f().title().eq("a") | f().title().eq("b")),
        "filters[$or][0][title]=a&filters[$or][1][title]=b",
    );
    same(
        filtered(f().title().eq("a") | f().title().eq("b")),
        "filters[title][$eq][0]=a&filters[title][$eq][1]=b",
    );
    same(
        filtered(!f().title().eq("a")),
        "filters[$not][title][$eq]=a",
    );
    same(
        filtered(f().title().eq("a").not().not()),
        "filters[$not][$not][title][$eq]=a",
    );
    same(
        filtered(!f().author().name().eq("a")),
        "filters[author][$not][name][$eq]=a",
    );
    same(
        filtered(Filter::any([
            f().views().lt(1) & f().featured().eq(false),
            f().views().gt(100),
        ])),
        "filters[$or][0][$and][0][views][$lt]=1&filters[$or][0][$and][1][featured]=false&filters[$or][1][views][$gt]=100",
    );
    // Calling `filter` twice ANDs.
    same(
        article::query()
            .filter(f().title().eq("a"))
            .filter(f().views().gt(1)),
        "filters[$and][0][title]=a&filters[$and][1][views][$gt]=1",
    );
    // Empty filters add nothing, as an empty `$in` does over HTTP.
    let empty: [i32; 0] = [];
    same(filtered(f().views().in_(empty)), "");
    same(
        filtered(f().views().in_(empty).and(f().title().eq("a"))),
        "filters[title]=a",
    );
    same(filtered(Filter::all([])), "");
}

// --------------------------------------------------------------------------- populate

#[test]
fn populate() {
    same(
        article::query().populate(ArticlePopulate::Author),
        "populate[author]=true",
    );
    same(
        article::query().populate(ArticlePopulate::Author),
        "populate=author",
    );
    same(
        article::query()
            .populate(ArticlePopulate::Tags)
            .populate(ArticlePopulate::Author),
        "populate[0]=author&populate[1]=tags",
    );
    same(
        article::query().populate(ArticlePopulate::Author.populate(AuthorPopulate::Avatar)),
        "populate=author.avatar",
    );
    same(
        article::query().populate(
            ArticlePopulate::Author
                .fields([AuthorField::Name, AuthorField::Name, AuthorField::CreatedAt])
                .filter(author::filter().name().starts_with("A"))
                .sort(author::sort().name().desc())
                .populate(AuthorPopulate::Articles.count()),
        ),
        "populate[author][fields][0]=name&populate[author][fields][1]=createdAt&populate[author][filters][name][$startsWith]=A&populate[author][sort]=name:desc&populate[author][populate][articles][count]=true",
    );
    same(
        article::query().populate(
            ArticlePopulate::Tags
                .count()
                .filter(tag::filter().name().eq("x")),
        ),
        "populate[tags][count]=true&populate[tags][filters][name]=x",
    );
    same(
        article::query().populate(ArticlePopulate::Seo.populate(SharedSeoPopulate::Social)),
        "populate[seo][populate][social]=true",
    );
    same(
        article::query().populate(ArticlePopulate::Faq.fields([SharedFaqItemField::Question])),
        "populate[faq][fields]=question",
    );
    same(
        article::query().populate(ArticlePopulate::Cover.fields([UploadFileField::Url])),
        "populate[cover][fields][0]=url",
    );
    same(
        article::query().populate(ArticlePopulate::Localizations.fields([ArticleField::Title])),
        "populate[localizations][fields][0]=title",
    );
}

#[test]
fn populate_dynamic_zones() {
    same_but_zone_members(
        article::query().populate(ArticlePopulate::Blocks),
        "populate[blocks]=true",
    );
    same_but_zone_members(
        article::query().populate(ArticlePopulate::Blocks),
        "populate=blocks",
    );
    same(
        article::query().populate(
            ArticlePopulate::Blocks
                .on::<SharedQuote>(|q| {
                    q.fields([SharedQuoteField::Title])
                        .populate(SharedQuotePopulate::Author)
                })
                .on::<SharedRichText>(|q| q),
        ),
        "populate[blocks][on][shared.rich-text]=true&populate[blocks][on][shared.quote][fields][0]=title&populate[blocks][on][shared.quote][populate][author]=true",
    );
    same(
        article::query().populate(
            ArticlePopulate::Blocks.on::<SharedSlider>(|s| s.populate(SharedSliderPopulate::Files)),
        ),
        "populate[blocks][on][shared.slider][populate][files]=true",
    );
}

#[test]
fn populate_all_is_star() {
    same_but_zone_members(article::query().populate_all(), "populate=*");
    same(author::query().populate_all(), "populate=*");
    same(category::query().populate_all(), "populate=*");
}

// ------------------------------------------------------------------ fields, sort & co

#[test]
fn fields_and_sort() {
    same(
        article::query().fields([
            ArticleField::Title,
            ArticleField::Views,
            ArticleField::Title,
        ]),
        "fields[0]=title&fields[1]=views",
    );
    same(article::query().fields([]), "fields=");
    same(
        article::query().fields([ArticleField::Locale, ArticleField::PublishedAt]),
        "fields=locale,publishedAt",
    );
    same(
        article::query()
            .sort(article::sort().title().asc())
            .sort(article::sort().author().name().desc())
            .sort(article::sort().seo().meta_title().asc())
            .sort(article::sort().id().desc()),
        "sort=title,author.name:desc,seo.metaTitle:asc,id:desc",
    );
    same(
        article::query().sort(article::sort().created_at().desc()),
        "sort[createdAt]=desc",
    );
}

#[test]
fn pagination_locale_status_and_search() {
    same(
        article::query().page(2, 10),
        "pagination[page]=2&pagination[pageSize]=10",
    );
    same(
        article::query().page(0, 0),
        "pagination[page]=1&pagination[pageSize]=1",
    );
    same(
        article::query().offset(5, 3).with_count(false),
        "pagination[start]=5&pagination[limit]=3&pagination[withCount]=false",
    );
    same(article::query().locale("fr"), "locale=fr");
    same(article::query().locale("*"), "locale=*");
    same(article::query().all_locales(), "locale=*");
    same(article::query().locale(""), "locale=");
    same(
        article::query().locales(["en", "fr"]),
        "locale[0]=en&locale[1]=fr",
    );
    same(article::query().locales(Vec::<String>::new()), "");
    same(article::query().status(Status::Draft), "status=draft");
    same(
        article::query().status(Status::Published),
        "status=published",
    );
    same(
        article::query().publication_filter(PublicationFilter::Modified),
        "publicationFilter=modified",
    );
    same(article::query().search("rust lang"), "_q=rust%20lang");
    same(article::query().search(""), "_q=");
    same(
        category::query()
            .status(Status::Draft)
            .filter(category::filter().children().name().null()),
        "status=draft&filters[children][name][$null]=true",
    );
}

#[test]
fn a_full_query() {
    let q = article::query()
        .filter(
            article::filter()
                .title()
                .containsi("rust")
                .and(article::filter().author().name().eqi("ada lovelace")),
        )
        .populate(ArticlePopulate::Author.populate(AuthorPopulate::Avatar))
        .populate(ArticlePopulate::Blocks.on::<SharedQuote>(|q| q.fields([SharedQuoteField::Body])))
        .fields([ArticleField::Title, ArticleField::Slug])
        .sort(article::sort().published_at().desc())
        .page(1, 5)
        .locale("fr");
    round_trips(&q);
    assert_eq!(
        q.to_query_string(),
        "filters[$and][0][title][$containsi]=rust&filters[$and][1][author][name][$eqi]=ada%20lovelace&locale=fr&populate[author][populate][avatar]=true&populate[blocks][on][shared.quote][fields][0]=body&fields[0]=title&fields[1]=slug&sort[0]=publishedAt:desc&pagination[page]=1&pagination[pageSize]=5"
    );
}

/// The typed queries that once formed trybuild's `pass` case: `Filter::any`, `between`, a
/// populate `count` and a zone member's fields chain and print as Strapi reads them.
#[test]
fn any_between_count_and_zone_member_fields() {
    let q = article::query()
        .filter(
            article::filter()
                .title()
                .contains("rust")
                .and(article::filter().author().name().eqi("ada")),
        )
        .filter(Filter::any([
            article::filter().views().between(10, 100),
            article::filter().kind().eq(ArticleKind::Tutorial),
        ]))
        .populate(ArticlePopulate::Author.populate(AuthorPopulate::Avatar))
        .populate(ArticlePopulate::Tags.count())
        .populate(
            ArticlePopulate::Blocks.on::<SharedQuote>(|q| q.fields([SharedQuoteField::Title])),
        )
        .fields([ArticleField::Title, ArticleField::PublishedAt])
        .sort(article::sort().author().name().desc())
        .page(2, 10)
        .locale("fr");
    let s = q.to_query_string();
    assert!(
        s.starts_with("filters[$and][0][title][$contains]=rust"),
        "{s}"
    );
    assert!(s.contains("populate[tags][count]=true"), "{s}");
}

#[test]
fn component_paths_for_populate_options() {
    same(
        article::query().populate(
            ArticlePopulate::Faq
                .filter(shared_faq_item::filter().question().contains("why"))
                .sort(shared_faq_item::sort().answer().desc()),
        ),
        "populate[faq][filters][question][$contains]=why&populate[faq][sort]=answer:desc",
    );
    same(
        article::query().populate(ArticlePopulate::Blocks.on::<SharedQuote>(|q| {
            q.filter(shared_quote::filter().author().name().eq("Ada"))
                .sort(shared_quote::sort().title().asc())
        })),
        "populate[blocks][on][shared.quote][filters][author][name]=Ada&populate[blocks][on][shared.quote][sort]=title",
    );
}

// ------------------------------------------------------------------- the edge-case model

#[test]
fn keywords_self_relations_and_long_names() {
    use edge::*;
    same(
        keyword::query().filter(keyword::filter().r#type().eq("a")),
        "filters[type]=a",
    );
    same(
        keyword::query().filter(keyword::filter().r#match().eq(KeywordMatch::AB2)),
        "filters[match]=a-b",
    );
    same(
        keyword::query().filter(keyword::filter().self_().r#fn().gt(1)),
        "filters[self][fn][$gt]=1",
    );
    same(
        keyword::query()
            .filter(keyword::filter().crate_().eqi("x") | keyword::filter().r#async().eq(true)),
        "filters[$or][0][crate][$eqi]=x&filters[$or][1][async]=true",
    );
    same(
        keyword::query()
            .filter(
                keyword::filter()
                    .r#loop()
                    .r#type()
                    .eq(SharedPairType::Number),
            )
            .populate(KeywordPopulate::Self_.populate(KeywordPopulate::Loop))
            .sort(keyword::sort().r#dyn().desc())
            .fields([KeywordField::Type, KeywordField::Await]),
        "filters[loop][type]=number&populate[self][populate][loop]=true&sort=dyn:desc&fields=type,await",
    );
    same(
        node::query()
            .filter(node::filter().parent().parent().name().eq("root"))
            .populate(NodePopulate::Children.count())
            .populate(NodePopulate::Parent.populate(NodePopulate::Parent))
            .populate(NodePopulate::Path),
        "filters[parent][parent][name]=root&populate[parent][populate][parent]=true&populate[children][count]=true&populate[path]=true",
    );
    same(
        node::query().filter(node::filter().path().segments().null()),
        "filters[path][segments][$null]=true",
    );
    same(
        long_name::query()
            .filter(
                long_name::filter()
                    .an_attribute_name_that_is_much_longer_than_fifty_five_characters_in_total_for_sure()
                    .starts_with("a"),
            )
            .populate(LongNamePopulate::ARelationNameThatIsMuchLongerThanFiftyFiveCharactersInTotalForSureToo),
        "filters[anAttributeNameThatIsMuchLongerThanFiftyFiveCharactersInTotalForSure][$startsWith]=a&populate=aRelationNameThatIsMuchLongerThanFiftyFiveCharactersInTotalForSureToo",
    );
}

#[test]
fn every_attribute_type_nested_components_and_a_single_type() {
    use edge::*;
    let f = everything::filter;
    for (typed, raw) in [
        (f().string().containsi("a"), "filters[string][$containsi]=a"),
        (f().uid().eq("a-b"), "filters[uid]=a-b"),
        (
            f().integer().between(1, 2),
            "filters[integer][$between]=1&filters[integer][$between]=2",
        ),
        (
            f().biginteger().lt(BigInt("12".into())),
            "filters[biginteger][$lt]=12",
        ),
        (f().float().gte(0.5), "filters[float][$gte]=0.5"),
        (f().decimal().lte(2), "filters[decimal][$lte]=2"),
        (f().boolean().ne(true), "filters[boolean][$ne]=true"),
        (f().date().eq("2024-02-29"), "filters[date]=2024-02-29"),
        (
            f().time().lt("23:59:59.5"),
            "filters[time][$lt]=23:59:59.500",
        ),
        (
            f().datetime().gt("2024-01-01T00:00:00+02:00"),
            "filters[datetime][$gt]=2023-12-31T22:00:00.000Z",
        ),
        (f().timestamp().gt(0), "filters[timestamp][$gt]=0"),
        (f().json().null(), "filters[json][$null]=true"),
        (f().blocks().not_null(), "filters[blocks][$notNull]=true"),
        (
            f().color().starts_with("#"),
            "filters[color][$startsWith]=%23",
        ),
        (f().rating().gt(3), "filters[rating][$gt]=3"),
        (
            f().tree().levels().leaf().node().name().eq("n"),
            "filters[tree][levels][leaf][node][name]=n",
        ),
        (
            f().tree().levels().leaf().language().code().eq("fr"),
            "filters[tree][levels][leaf][language][code]=fr",
        ),
        (
            f().pairs().key().in_(["k"]),
            "filters[pairs][key][$in][0]=k",
        ),
        (
            f().owner().role().name().eq("Public"),
            "filters[owner][role][name]=Public",
        ),
    ] {
        same(everything::query().filter(typed), raw);
    }
    same(
        everything::query().populate(EverythingPopulate::Tree.populate(
            NestedLevelOnePopulate::Levels.populate(
                NestedLevelTwoPopulate::Leaf.populate(NestedLevelThreePopulate::Nodes.count()),
            ),
        )),
        "populate[tree][populate][levels][populate][leaf][populate][nodes][count]=true",
    );
    same(
        everything::query().populate(
            EverythingPopulate::Sections
                .on::<EverythingKind>(|k| k)
                .on::<NestedLevelThree>(|l| l.populate(NestedLevelThreePopulate::Icon)),
        ),
        "populate[sections][on][nested.level-three][populate][icon]=true&populate[sections][on][everything.kind]=true",
    );
    // A single type.
    same(
        homepage::query()
            .locale("de")
            .populate(
                HomepagePopulate::Body
                    .on::<NestedLevelOne>(|n| n.fields([NestedLevelOneField::Title])),
            )
            .populate(HomepagePopulate::Featured.fields([EverythingField::String])),
        "locale=de&populate[featured][fields]=string&populate[body][on][nested.level-one][fields]=title",
    );
}

// ------------------------------------------------------------------------ property test

/// A recipe for a filter on articles: leaves pick one of the typed operators.
#[derive(Debug, Clone)]
enum Recipe {
    Leaf(u8, String, i64, f64, bool),
    And(Vec<Recipe>),
    Or(Vec<Recipe>),
    Not(Box<Recipe>),
    Tags(Box<AuthorOrTag>),
}

/// A filter inside `tags().matches(…)` or `author().matches(…)`.
#[derive(Debug, Clone)]
enum AuthorOrTag {
    Tag(u8, String),
    Author(u8, String, Vec<u8>),
}

fn leaf(i: u8, s: &str, n: i64, x: f64, b: bool) -> Filter<Article> {
    let f = article::filter;
    match i % 32 {
        0 => f().title().eq(s),
        1 => f().title().containsi(s),
        2 => f().title().not_contains(s),
        3 => f().slug().starts_with(s),
        4 => f().description().ends_withi(s),
        5 => f().title().in_([s, "x"]),
        6 => f().title().not_in([s]),
        7 => f().views().gt(n),
        8 => f().views().between(n, n.saturating_add(10)),
        9 => f().views().in_([n, 1]),
        10 => f().rating().lte(x),
        11 => f().price().ne(x),
        12 => f().word_count().gte(n),
        13 => f().featured().eq(b),
        14 => f().publish_date().gt(Date(format!(
            "20{:02}-0{}-1{}",
            n.rem_euclid(100),
            1 + n.rem_euclid(9),
            n.rem_euclid(9)
        ))),
        15 => f().start_time().lt(Time(format!(
            "1{}:3{}:00",
            n.rem_euclid(10),
            n.rem_euclid(10)
        ))),
        16 => f().event_at().gte(n),
        17 => f().created_at().lt(n.rem_euclid(4_000_000_000_000)),
        18 => f().kind().eq(if b {
            ArticleKind::News
        } else {
            ArticleKind::Opinion
        }),
        19 => f().kind().nei(s),
        20 => f().metadata().null(),
        21 => f().title().not_null(),
        22 => f().author().name().eqi(s),
        23 => f().author().null(),
        24 => f().tags().name().contains(s),
        25 => f().seo().meta_title().eq(s),
        26 => f().seo().social().url().starts_withi(s),
        27 => f().cover().name().eq(s),
        28 => f().category().parent().name().ne(s),
        29 => f().document_id().eq(s),
        30 => f()
            .localizations()
            .matches(|a| a.title().ne(s).or(a.views().null())),
        _ => f().id().lt(n),
    }
}

fn build(r: &Recipe) -> Filter<Article> {
    match r {
        Recipe::Leaf(i, s, n, x, b) => leaf(*i, s, *n, *x, *b),
        Recipe::And(parts) => Filter::all(parts.iter().map(build)),
        Recipe::Or(parts) => Filter::any(parts.iter().map(build)),
        Recipe::Not(inner) => build(inner).not(),
        Recipe::Tags(inner) => match inner.as_ref() {
            AuthorOrTag::Tag(i, s) => article::filter().tags().matches(|t| match i % 3 {
                0 => t.name().eq(s.as_str()),
                1 => t.name().containsi(s.as_str()).or(t.id().gt(1)),
                _ => t.name().eq(s.as_str()).not(),
            }),
            AuthorOrTag::Author(i, s, more) => article::filter().author().matches(|a| {
                let first = match i % 4 {
                    0 => a.name().eq(s.as_str()),
                    1 => a.email().ends_with(s.as_str()),
                    2 => a.mentor().name().eqi(s.as_str()),
                    _ => a.avatar().url().null(),
                };
                more.iter().fold(first, |acc, j| match j % 3 {
                    0 => acc.and(a.bio().contains(s.as_str())),
                    1 => acc.or(a.id().in_([1, 2])),
                    _ => acc.not(),
                })
            }),
        },
    }
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z]{0,6}",
        "[ -~]{0,8}",
        any::<String>().prop_map(|s| s.chars().take(6).collect()),
    ]
}

fn recipe() -> impl Strategy<Value = Recipe> {
    let leaf = (
        any::<u8>(),
        text(),
        -1_000_000_i64..1_000_000_000_000,
        -1e9_f64..1e9,
        any::<bool>(),
    )
        .prop_map(|(i, s, n, x, b)| Recipe::Leaf(i, s, n, x, b));
    let related = prop_oneof![
        (any::<u8>(), text()).prop_map(|(i, s)| AuthorOrTag::Tag(i, s)),
        (
            any::<u8>(),
            text(),
            prop::collection::vec(any::<u8>(), 0..3)
        )
            .prop_map(|(i, s, m)| AuthorOrTag::Author(i, s, m)),
    ];
    let base = prop_oneof![4 => leaf, 1 => related.prop_map(|r| Recipe::Tags(Box::new(r)))];
    base.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Recipe::And),
            prop::collection::vec(inner.clone(), 0..4).prop_map(Recipe::Or),
            inner.prop_map(|r| Recipe::Not(Box::new(r))),
        ]
    })
}

/// The other parameters of a query.
#[derive(Debug, Clone)]
struct Rest {
    populate: Vec<u8>,
    fields: Vec<u8>,
    sort: Vec<(u8, bool)>,
    page: Option<(u64, u64, bool)>,
    locale: Option<String>,
    draft: bool,
    search: String,
}

fn rest() -> impl Strategy<Value = Rest> {
    (
        prop::collection::vec(any::<u8>(), 0..4),
        prop::collection::vec(any::<u8>(), 0..5),
        prop::collection::vec((any::<u8>(), any::<bool>()), 0..3),
        prop::option::of((0_u64..50, 0_u64..100, any::<bool>())),
        prop::option::of(prop_oneof![Just("*".to_string()), "[a-z]{2}(-[A-Z]{2})?"]),
        any::<bool>(),
        text(),
    )
        .prop_map(
            |(populate, fields, sort, page, locale, draft, search)| Rest {
                populate,
                fields,
                sort,
                page,
                locale,
                draft,
                search,
            },
        )
}

fn apply(mut q: TypedQuery<Article>, r: &Rest) -> TypedQuery<Article> {
    for p in &r.populate {
        q = match p % 12 {
            0 => q.populate(ArticlePopulate::Author),
            1 => q.populate(ArticlePopulate::Author.populate(AuthorPopulate::Avatar)),
            2 => q.populate(ArticlePopulate::Tags.count()),
            3 => q.populate(
                ArticlePopulate::Tags
                    .count()
                    .filter(tag::filter().name().eq("a")),
            ),
            4 => q.populate(ArticlePopulate::Blocks),
            5 => q.populate(
                ArticlePopulate::Blocks.on::<SharedQuote>(|f| f.fields([SharedQuoteField::Title])),
            ),
            6 => q.populate(ArticlePopulate::Seo.populate(SharedSeoPopulate::ShareImage)),
            7 => q.populate(ArticlePopulate::Faq),
            8 => q.populate(ArticlePopulate::Localizations.fields([ArticleField::Locale])),
            9 => q.populate(
                ArticlePopulate::Category
                    .sort(category::sort().name().asc())
                    .populate(CategoryPopulate::Parent),
            ),
            10 => q.populate(ArticlePopulate::Gallery.fields([UploadFileField::Name])),
            _ => q.populate(ArticlePopulate::Editor.populate(UsersPermissionsUserPopulate::Role)),
        };
    }
    if !r.fields.is_empty() {
        let all = [
            ArticleField::Title,
            ArticleField::Views,
            ArticleField::Kind,
            ArticleField::Metadata,
            ArticleField::CreatedAt,
            ArticleField::Locale,
            ArticleField::WordCount,
        ];
        q = q.fields(r.fields.iter().map(|i| all[usize::from(*i) % all.len()]));
    }
    for (s, asc) in &r.sort {
        let key = match (s % 5, asc) {
            (0, true) => article::sort().title().asc(),
            (0, false) => article::sort().title().desc(),
            (1, true) => article::sort().views().asc(),
            (1, false) => article::sort().views().desc(),
            (2, true) => article::sort().author().name().asc(),
            (2, false) => article::sort().author().name().desc(),
            (3, true) => article::sort().seo().meta_title().asc(),
            (3, false) => article::sort().seo().meta_title().desc(),
            (_, true) => article::sort().updated_at().asc(),
            (_, false) => article::sort().updated_at().desc(),
        };
        q = q.sort(key);
    }
    if let Some((page, size, offset)) = r.page {
        q = if offset {
            q.offset(page, size)
        } else {
            q.page(page, size)
        };
    }
    if let Some(l) = &r.locale {
        q = q.locale(l.as_str());
    }
    if r.draft {
        q = q.status(Status::Draft);
    }
    q.search(r.search.as_str())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, .. ProptestConfig::default() })]

    #[test]
    fn builder_queries_round_trip(f in recipe(), r in rest()) {
        let q = apply(article::query().filter(build(&f)), &r);
        let s = q.to_query_string();
        let m = Article::model();
        let back = parse_query(&s, m, Article::schema_id(), &Permissions::all(m), &QueryConfig::default());
        prop_assert_eq!(back.as_ref().ok(), Some(q.query()), "{}", s);
    }
}
