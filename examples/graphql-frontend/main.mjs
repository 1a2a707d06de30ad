// A front end's reads through Apollo Client (core, no React) against Strapi's GraphQL
// API, served by strata or by Strapi itself: a filtered, paginated and sorted list with
// variables, cards through a named fragment with nested relations, a `_connection` page
// with its `pageInfo`, an article's dynamic zone through inline fragments, the normalized
// cache read back, Apollo's three kinds of failure (a forbidden type, partial data, a
// query the server refuses), and automatic persisted queries. One line per step, the same
// text whichever server answers.
//
//   GRAPHQL_URL=http://127.0.0.1:1337/graphql node main.mjs

import {
  ApolloClient,
  CombinedGraphQLErrors,
  HttpLink,
  InMemoryCache,
  ServerError,
  gql,
} from "@apollo/client";
import { PersistedQueryLink } from "@apollo/client/link/persisted-queries";
import { createHash } from "node:crypto";

const url = process.env.GRAPHQL_URL ?? "http://127.0.0.1:1337/graphql";

const client = new ApolloClient({
  link: new HttpLink({ uri: url }),
  cache: new InMemoryCache({
    // Strapi's entries are known by documentId; a localized type has one entry per locale.
    typePolicies: {
      Article: { keyFields: ["documentId", "locale"] },
      Author: { keyFields: ["documentId"] },
      Category: { keyFields: ["documentId"] },
      Tag: { keyFields: ["documentId"] },
    },
  }),
});

// Apollo adds `__typename` to every selection; the printed data keeps it.
const print = (step, value) => console.log(`${step}: ${JSON.stringify(value)}`);

// What a failed operation says, in a stable order: the error's class, then either each
// GraphQL error (code, path, message) or the HTTP status.
function describe(error) {
  if (CombinedGraphQLErrors.is(error)) {
    const lines = error.errors.map(
      (e) => `${e.extensions?.code} at ${(e.path ?? []).join(".") || "-"}: ${e.message}`,
    );
    return `CombinedGraphQLErrors [${lines.sort().join("; ")}]`;
  }
  if (ServerError.is(error)) {
    return `ServerError ${error.statusCode}: ${error.message}`;
  }
  return `${error?.name}: ${error?.message}`;
}

// 1. A list with variables: filters (a relation two hops away and `or`), a page, two sort keys.
const ARTICLE_LIST = gql`
  query ArticleList(
    $filters: ArticleFiltersInput
    $pagination: PaginationArg
    $sort: [String]
  ) {
    articles(filters: $filters, pagination: $pagination, sort: $sort) {
      documentId
      locale
      title
      views
      publishDate
    }
  }
`;
const list = await client.query({
  query: ARTICLE_LIST,
  variables: {
    filters: {
      category: { parent: { slug: { eq: "technology" } } },
      or: [{ kind: { eq: "tutorial" } }, { views: { gte: 1000 } }],
    },
    pagination: { page: 1, pageSize: 4 },
    sort: ["views:desc", "title:asc"],
  },
});
print("list", list.data.articles);

// 2. Cards: a named fragment with the author, the category and its parent, sorted tags.
const ARTICLE_CARDS = gql`
  fragment ArticleCard on Article {
    documentId
    locale
    title
    author {
      documentId
      name
    }
    category {
      documentId
      slug
      parent {
        documentId
        slug
      }
    }
    tags(sort: "name:asc") {
      documentId
      name
    }
  }
  query ArticleCards($pageSize: Int) {
    articles(sort: "publishDate:desc", pagination: { pageSize: $pageSize }) {
      ...ArticleCard
    }
  }
`;
const cards = await client.query({ query: ARTICLE_CARDS, variables: { pageSize: 3 } });
print("cards", cards.data.articles);

// 3. A page of the connection, and its pageInfo (page, size, count of pages, total).
const ARTICLE_PAGE = gql`
  query ArticlePage($page: Int, $pageSize: Int) {
    articles_connection(
      sort: "title:asc"
      pagination: { page: $page, pageSize: $pageSize }
    ) {
      nodes {
        documentId
        locale
        title
      }
      pageInfo {
        page
        pageSize
        pageCount
        total
      }
    }
  }
`;
const page = await client.query({ query: ARTICLE_PAGE, variables: { page: 2, pageSize: 5 } });
print("connection", page.data.articles_connection);

// 4. One article (the list's first one named "Hello World") with its dynamic zone, each
// member through an inline fragment on its component type, and its SEO component.
const hello = await client.query({
  query: gql`
    query FindArticle($title: String) {
      articles(filters: { title: { eq: $title } }) {
        documentId
        locale
      }
    }
  `,
  variables: { title: "Hello World" },
});
const ARTICLE_BLOCKS = gql`
  query ArticleBlocks($documentId: ID!) {
    article(documentId: $documentId) {
      documentId
      locale
      title
      seo {
        id
        metaTitle
      }
      blocks {
        ... on ComponentSharedRichText {
          id
          body
        }
        ... on ComponentSharedQuote {
          id
          title
          body
        }
        ... on ComponentSharedMedia {
          id
        }
        ... on ComponentSharedSlider {
          id
        }
      }
    }
  }
`;
const blocks = await client.query({
  query: ARTICLE_BLOCKS,
  variables: { documentId: hello.data.articles[0].documentId },
});
print("zone", blocks.data.article);

// 5. The normalized cache: the article read back as a fragment (no request), and the
// cards query answered from the cache alone.
const cached = client.readFragment({
  id: client.cache.identify({
    __typename: "Article",
    documentId: hello.data.articles[0].documentId,
    locale: "en",
  }),
  fragment: gql`
    fragment Cached on Article {
      title
      seo {
        metaTitle
      }
    }
  `,
});
print("cache", cached);
const again = await client.query({
  query: ARTICLE_CARDS,
  variables: { pageSize: 3 },
  fetchPolicy: "cache-only",
});
print("cache-only", again.data.articles.map((a) => a.title));

// 6. Another locale: the French versions, an entry per (documentId, locale) in the cache.
const fr = await client.query({
  query: gql`
    query French($locale: I18NLocaleCode) {
      articles(locale: $locale, sort: "title:asc") {
        documentId
        locale
        title
      }
    }
  `,
  variables: { locale: "fr" },
});
print("locale-fr", fr.data.articles.map((a) => `${a.documentId} ${a.locale} ${a.title}`));

// 7. A type the public role may not read: the query rejects (errorPolicy "none").
try {
  const secrets = await client.query({
    query: gql`
      query Secrets {
        secrets {
          documentId
        }
      }
    `,
  });
  print("forbidden", { unexpected: secrets.data });
} catch (error) {
  print("forbidden", describe(error));
}

// 8. Partial data (errorPolicy "all"): the tags, and the forbidden connection as null.
const partial = await client.query({
  query: gql`
    query TagsAndSecrets {
      tags(sort: "name:asc") {
        documentId
        name
      }
      secrets_connection {
        pageInfo {
          total
        }
      }
    }
  `,
  errorPolicy: "all",
});
print("partial-data", partial.data);
print("partial-error", describe(partial.error));

// 9. A forbidden relation below readable entries: one error per entry, the entries stand.
const relation = await client.query({
  query: gql`
    query ArticleSecrets {
      articles(sort: "title:asc", pagination: { pageSize: 2 }) {
        documentId
        locale
        title
        secret {
          documentId
        }
      }
    }
  `,
  errorPolicy: "all",
});
print("relation-data", relation.data);
print("relation-error", describe(relation.error));

// 10. A query the server refuses before running it (a field the schema does not have).
try {
  await client.query({
    query: gql`
      query Unknown {
        articles {
          documentId
          locale
          subtitle
        }
      }
    `,
  });
  print("invalid", "unexpected success");
} catch (error) {
  print("invalid", describe(error));
}

// 11. Automatic persisted queries: the link sends the query's hash alone; the server asks
// for the text once (PersistedQueryNotFound), keeps it, and then runs the hash alone.
const sent = [];
const persisted = new ApolloClient({
  link: new PersistedQueryLink({
    sha256: (text) => createHash("sha256").update(text).digest("hex"),
  }).concat(
    new HttpLink({
      uri: url,
      fetch: (uri, options) => {
        sent.push(JSON.parse(options.body).query === undefined ? "hash" : "text");
        return fetch(uri, options);
      },
    }),
  ),
  cache: new InMemoryCache(),
});
const TAG_NAMES = gql`
  query TagNames {
    tags(sort: "name:asc", pagination: { limit: 3 }) {
      name
    }
  }
`;
const firstRun = await persisted.query({ query: TAG_NAMES, fetchPolicy: "network-only" });
const secondRun = await persisted.query({ query: TAG_NAMES, fetchPolicy: "network-only" });
print("persisted", { first: firstRun.data, second: secondRun.data, sent });
