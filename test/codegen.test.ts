/**
 * The drift test of every generated file: each is what `npm run codegen` would
 * write (scripts/codegen.ts lists the generators). A generator added there is
 * checked here. The artifacts are rendered from their committed ABIs and
 * bytecode with the current sources, settings and compiler (no solc run, which
 * takes 10-20 s): a source changed without a rebuild, or any generated text
 * edited by hand but an ABI or a bytecode, fails here;
 * packages/contracts/test/Artifacts.test.ts compiles and compares those.
 */
import { assert, describe, it } from "@effect/vitest"
import { drift, GENERATORS } from "../scripts/codegen.ts"

describe("generated files (npm run codegen rewrites them; npm run codegen -- --check lists what differs)", () => {
  for (const generator of GENERATORS) {
    it(`${generator.name} (${generator.source})`, () => {
      const files = generator.files("drift")
      assert.isAbove(files.size, 0)
      assert.deepStrictEqual(drift(generator, files), [], "run npm run codegen and commit the result")
    })
  }
})
