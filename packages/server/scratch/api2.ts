import * as ApiDocument from "@svc/protocol/ApiDocument"
import { buildOpenApi } from "../src/OpenApi.ts"
const a = ApiDocument.make({ publicUrl: "http://127.0.0.1:8787" }) as any
const b = buildOpenApi({ publicUrl: "http://127.0.0.1:8787" }) as any
const diff = (x: any, y: any, path: string, out: string[]) => {
  if (JSON.stringify(x) === JSON.stringify(y)) return
  if (typeof x !== "object" || typeof y !== "object" || x === null || y === null || Array.isArray(x) !== Array.isArray(y)) { out.push(`${path}: ${JSON.stringify(x)?.slice(0,200)} != ${JSON.stringify(y)?.slice(0,200)}`); return }
  for (const k of new Set([...Object.keys(x), ...Object.keys(y)])) diff(x[k], y[k], `${path}/${k}`, out)
}
const out: string[] = []
diff(a.paths, b.paths, "paths", out)
console.log(out.length); console.log(out.slice(0, 80).join("\n"))
const out2: string[] = []
diff(a.components.schemas, b.components.schemas, "schemas", out2)
console.log(out2.length); console.log(out2.slice(0, 40).join("\n"))
