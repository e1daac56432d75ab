/** The whole service's context: the care context, built once by the app factory. */
export type { CareContext as AppContext } from "../care/core/context";
