// A module whose namespace object test/api-surface.test.ts describes.
export const VALUE = 1
export const fn = () => VALUE
export class Klass {}
