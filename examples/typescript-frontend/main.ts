// A front end that writes: through `@strapi/client` and the types `strata generate --lang
// typescript` wrote for the bundled blog (content.ts), it creates an article as a draft,
// updates it (sets a field, clears another), relates it (sets its author, connects a tag
// at a position), publishes it through `status`, reads a validation error, and deletes it.
// Every answer is checked; a wrong one ends the program with exit code 1 and what it got.
//
//   STRATA_URL=http://127.0.0.1:1337/api STRATA_TOKEN=<a full-access token> node main.js
//
// (README.md: how to build and run it). The last line on stdout is a JSON summary.
import { HTTPBadRequestError, HTTPNotFoundError, strapi } from "@strapi/client";
import type { Article, ArticleCreateInput, StrapiValidationError } from "./content";
import { typedCollection } from "./typed";

const baseURL = process.env.STRATA_URL ?? "http://127.0.0.1:1337/api";
const token = process.env.STRATA_TOKEN;
const client = strapi(token ? { baseURL, auth: token } : { baseURL });

const articles = typedCollection(client, "articles");
const authors = typedCollection(client, "authors");
const tags = typedCollection(client, "tags");

/** Stops the program with what it got when `ok` is false. */
function expect(what: string, ok: boolean, got: unknown): void {
  if (!ok) {
    throw new Error(`wrong answer: ${what}; got ${JSON.stringify(got)}`);
  }
  console.log(`ok: ${what}`);
}

async function main(): Promise<void> {
  // Existing entries to relate to: ids read from typed entries keep their type's brand.
  const [first, second] = (await tags.find({ sort: "id", pagination: { pageSize: 2 } })).data;
  const author = (await authors.find({ sort: "id", pagination: { pageSize: 1 } })).data[0];
  expect("two tags and an author to relate to", !!first && !!second && !!author, {
    first,
    second,
    author,
  });

  // Create, as a draft.
  const draft: ArticleCreateInput = {
    title: "Written from TypeScript",
    slug: `written-from-typescript-${Date.now()}`,
    description: "A draft, for now",
    views: 1,
    kind: "tutorial",
    tags: [first.documentId],
    seo: { metaTitle: "From a front end", social: [{ network: "x", url: "https://x.com/strata" }] },
    blocks: [
      { __component: "shared.rich-text", body: "Hello" },
      { __component: "shared.quote", title: "Typed", body: "writes", author: author.documentId },
    ],
  };
  const created = await articles.create(draft, {
    status: "draft",
    populate: ["tags", "seo", "blocks"],
  });
  const id = created.documentId;
  expect("created as a draft", created.publishedAt === null && created.title === draft.title, created);
  expect(
    "created with its tag",
    (created.tags ?? []).map((t) => t.documentId).join() === first.documentId,
    created.tags,
  );
  expect(
    "created with its zone in order",
    (created.blocks ?? []).map((b) => b.__component).join() === "shared.rich-text,shared.quote",
    created.blocks,
  );

  // Update: set a field, clear another, set the author, connect a tag before the first.
  const updated = await articles.update(
    id,
    {
      title: "Written and updated from TypeScript",
      description: null,
      author: { set: [author.documentId] },
      tags: { connect: [{ documentId: second.documentId, position: { before: first.documentId } }] },
    },
    { status: "draft", populate: ["author", "tags"] },
  );
  expect("the title set", updated.title === "Written and updated from TypeScript", updated.title);
  expect("the description cleared", updated.description === null, updated.description);
  expect("the views kept", updated.views === 1, updated.views);
  expect(
    "the author set",
    updated.author?.documentId === author.documentId,
    updated.author,
  );
  expect(
    "the second tag connected before the first",
    (updated.tags ?? []).map((t) => t.documentId).join() ===
      [second.documentId, first.documentId].join(),
    updated.tags,
  );

  // Not published yet: the published version does not exist.
  let unpublished: unknown = "found";
  try {
    await articles.findOne(id);
  } catch (e) {
    unpublished = e instanceof HTTPNotFoundError ? "not found" : e;
  }
  expect("no published version before publishing", unpublished === "not found", unpublished);

  // A published write validates what a draft does not: the error names the path.
  let refused: StrapiValidationError | undefined;
  try {
    await articles.update(id, { contactEmail: "not an email" });
  } catch (e) {
    if (!(e instanceof HTTPBadRequestError)) throw e;
    refused = (await e.response.json()) as StrapiValidationError;
  }
  const failed = refused?.error.details.errors?.[0];
  expect(
    "a bad email refused on publish, at its path",
    refused?.error.name === "ValidationError" && failed?.path.join(".") === "contactEmail",
    refused,
  );

  // Publish through `status` (the default of a write), setting a field on the way.
  const published = await articles.update(id, { featured: true }, { status: "published" });
  expect("published", typeof published.publishedAt === "string", published.publishedAt);
  const read: Article = await articles.findOne(id, { populate: ["author", "tags"] });
  expect(
    "the published version read back",
    read.featured === true &&
      read.description === null &&
      read.author?.documentId === author.documentId &&
      (read.tags ?? []).length === 2,
    read,
  );

  // Delete: every version goes.
  await articles.delete(id);
  let gone: unknown = "found";
  try {
    await articles.findOne(id, { status: "draft" });
  } catch (e) {
    gone = e instanceof HTTPNotFoundError ? "not found" : e;
  }
  expect("deleted", gone === "not found", gone);

  console.log(
    JSON.stringify({
      documentId: id,
      author: author.documentId,
      tags: [second.documentId, first.documentId],
      publishedAt: published.publishedAt,
    }),
  );
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exitCode = 1;
});
