// A typed face for `@strapi/client`'s collection API. The client takes any object as
// `data` (`Record<string, any>`) and answers untyped documents; here each collection takes
// the generated input types of its content type and answers its entry type, by the plural
// name alone (`StrapiCollections` maps one to the other).
import type { API, StrapiClient } from "@strapi/client";
import type {
  StrapiCollections,
  StrapiListResponse,
  StrapiSingleResponse,
} from "./content";

/** `client.collection(name)`, with `name`'s input and entry types. */
export function typedCollection<K extends keyof StrapiCollections & string>(
  client: StrapiClient,
  name: K,
) {
  type Types = StrapiCollections[K];
  const collection = client.collection(name);
  return {
    /** `GET /api/<name>`. */
    async find(params?: API.BaseQueryParams): Promise<StrapiListResponse<Types["entry"]>> {
      return (await collection.find(params)) as unknown as StrapiListResponse<Types["entry"]>;
    },
    /** `GET /api/<name>/<documentId>`. */
    async findOne(
      documentId: Types["entry"]["documentId"],
      params?: API.BaseQueryParams,
    ): Promise<Types["entry"]> {
      const res = (await collection.findOne(documentId, params)) as unknown as
        StrapiSingleResponse<Types["entry"]>;
      return res.data;
    },
    /** `POST /api/<name>`: what a published create requires (a draft takes the update's shape). */
    async create<S extends "draft" | "published" = "published">(
      data: S extends "draft" ? Types["update"] : Types["create"],
      params?: API.BaseQueryParams & { status?: S },
    ): Promise<Types["entry"]> {
      const res = (await collection.create(data, params)) as unknown as
        StrapiSingleResponse<Types["entry"]>;
      return res.data;
    },
    /** `PUT /api/<name>/<documentId>`: absent keys are kept, `null` clears. */
    async update(
      documentId: Types["entry"]["documentId"],
      data: Types["update"],
      params?: API.BaseQueryParams,
    ): Promise<Types["entry"]> {
      const res = (await collection.update(documentId, { ...data }, params)) as unknown as
        StrapiSingleResponse<Types["entry"]>;
      return res.data;
    },
    /** `DELETE /api/<name>/<documentId>`: every locale's draft and published version. */
    async delete(documentId: Types["entry"]["documentId"], params?: API.BaseQueryParams) {
      await collection.delete(documentId, params);
    },
  };
}
