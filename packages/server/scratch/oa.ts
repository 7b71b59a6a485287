import { Schema } from "effect"
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
const ErrorResponse = Schema.Struct({ ok: Schema.Literal(false), error: Schema.String }).annotate({ identifier: "ErrorResponse", description: "An error" })
const err = (s: number, d: string) => ErrorResponse.pipe(HttpApiSchema.status(s)).annotate({ description: d })
const Bytes32 = Schema.String.check(Schema.isPattern(/^0x[0-9a-fA-F]{64}$/u)).annotate({ identifier: "Bytes32" })
const Api = HttpApi.make("svc").add(
  HttpApiGroup.make("Feed", { topLevel: true })
    .add(HttpApiEndpoint.get("getRouteDetail", "/api/v6/routes/:routeId", {
      params: { routeId: Bytes32.annotate({ description: "The canonical routeId" }) },
      query: Schema.Record(Schema.String, Schema.Never),
      headers: { "if-none-match": Schema.optionalKey(Schema.String.annotate({ description: "weak etag" })) },
      success: Schema.Struct({ ok: Schema.Literal(true) }).annotate({ description: "The route." }),
      error: [err(400, "Invalid request. codes: A"), err(404, "Not found. codes: B")]
    }).annotate(OpenApi.Summary, "Route detail").annotate(OpenApi.Override, { "x-svc-spec": { parts: ["4"] } }))
)
console.log(JSON.stringify(OpenApi.fromApi(Api), null, 1))
