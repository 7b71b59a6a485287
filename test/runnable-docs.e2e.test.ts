/**
 * Every command block of the README and docs/*.md marked `<!-- runnable -->`
 * (or long-running, or needing the devnet) runs as pasted, from the
 * repository root, against a fresh server (scripts/runnable-docs.ts). A slow
 * suite: it starts `npm start` once per document, and the devnet for the
 * blocks that need it.
 */
import { assert, describe, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { documents, parse, runDocument } from "../scripts/runnable-docs.ts"
import { scaled } from "./support/time.ts"

const root = fileURLToPath(new URL("../", import.meta.url))

describe("runnable-docs: the markers", () => {
  it("takes sh blocks right after a marker, of the five kinds, and refuses unknown markers and open blocks", () => {
    const text = [
      "intro",
      "<!-- runnable -->",
      "```sh",
      "echo one",
      "```",
      "```sh",
      "echo unmarked",
      "```",
      "<!-- runnable: long-running; Ctrl-C stops it -->",
      "```sh",
      "npm start",
      "```",
      "<!-- runnable: needs npm run devnet in another terminal -->",
      "```sh",
      "node x.ts",
      "echo two",
      "```",
      "<!-- runnable: plain chains -->",
      "```sh",
      "npx svc keys new --out keys/a.json",
      "```",
      "<!-- runnable: plain chains; long-running -->",
      "```sh",
      "npx svc serve",
      "```",
      "<!-- runnable -->",
      "```text",
      "not a shell block",
      "```"
    ].join("\n")
    const blocks = parse("x.md", text)
    assert.deepStrictEqual(blocks.map((b) => [b.kind, b.line, b.code]), [
      ["run", 3, "echo one"],
      ["long-running", 10, "npm start"],
      ["devnet", 14, "node x.ts\necho two"],
      ["chains", 19, "npx svc keys new --out keys/a.json"],
      ["chains-long-running", 23, "npx svc serve"]
    ])
    assert.throws(() => parse("y.md", "<!-- runnable: sometimes -->\n```sh\nx\n```"), /unknown runnable marker/)
    assert.throws(() => parse("z.md", "<!-- runnable -->\n```sh\nx"), /not closed/)
  })
})

describe("runnable-docs: every marked block runs as written", () => {
  for (const file of documents()) {
    const blocks = parse(file, readFileSync(join(root, file), "utf8"))
    if (blocks.length === 0) continue
    it(`${file} (${blocks.length} block${blocks.length === 1 ? "" : "s"})`, { timeout: scaled(900_000) }, async () => {
      const outcomes = await runDocument(file, blocks)
      const failed = outcomes.filter((o) => !o.ok)
      assert.deepStrictEqual(
        failed.map((o) => `${o.block.file}:${o.block.line}\n${o.block.code}\n${o.detail ?? ""}`),
        []
      )
      assert.strictEqual(outcomes.length, blocks.length)
    })
  }
})
