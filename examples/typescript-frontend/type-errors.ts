// What the generated input types refuse, proven under `tsc --strict`: each
// `@ts-expect-error` fails the compilation if the line below it stops being an error.
// Compiled, never run.
import type { ArticleCreateInput, ArticleUpdateInput, Author, Tag } from "./content";

declare const tag: Tag;
declare const author: Author;

export const relations: ArticleUpdateInput = {
  // An author's documentId goes to `author`...
  author: author.documentId,
  // ...and a plain string is taken as anyone's (a route parameter, a literal).
  category: "zqzbkb8y1vsw4mpf1fv0akf8",
  // @ts-expect-error: a relation takes its own target's ids: an author is no tag.
  tags: { connect: [{ documentId: author.documentId }] },
};

export const wrongTarget: ArticleUpdateInput = {
  // @ts-expect-error: a tag's documentId is not an author's.
  author: tag.documentId,
};

export const wrongPosition: ArticleUpdateInput = {
  // @ts-expect-error: a position names an entry of the same relation's target.
  tags: { connect: [{ documentId: tag.documentId, position: { before: author.documentId } }] },
};

export const zone: ArticleCreateInput = {
  blocks: [
    { __component: "shared.quote", title: "ok", author: author.documentId },
    // @ts-expect-error: `shared.seo` is a component of the project, not of this zone.
    { __component: "shared.seo", metaTitle: "not in blocks" },
  ],
};

export const media: ArticleUpdateInput = {
  cover: 1,
  gallery: [1, 2],
};

export const mediaById: ArticleUpdateInput = {
  // @ts-expect-error: media take file ids (numbers), here.
  cover: "file00000000000000000001",
};

export const unknownKey: ArticleUpdateInput = {
  // @ts-expect-error: the server refuses keys it does not know (`Invalid key`).
  nonsense: true,
};
