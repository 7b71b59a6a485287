import { OpenApi } from "effect/http-api"
import { Api } from "@svc/protocol/Api"
const doc = OpenApi.fromApi(Api) as any
console.log(Object.keys(doc), Object.keys(doc.paths))
console.log(JSON.stringify(doc.paths["/api/v6/execution-permits"], null, 1).slice(0, 2500))
console.log(Object.keys(doc.components.schemas).sort().join(" "))
