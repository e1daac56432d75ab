/** Defining a node type: one call per spec file, typed by its config schema. */
import type { z } from "zod";
import type { ChannelSpec, FilterSpec, StepSpec } from "./types";

type Without<T, K extends keyof T> = Omit<T, K | "kind">;

export const defineStep = <S extends z.ZodObject>(spec: Without<StepSpec<S>, never>): StepSpec<S> => ({ kind: "step", ...spec });
export const defineFilter = <S extends z.ZodObject>(spec: Without<FilterSpec<S>, never>): FilterSpec<S> => ({ kind: "filter", ...spec });
export const defineChannel = <S extends z.ZodObject>(spec: Without<ChannelSpec<S>, never>): ChannelSpec<S> => ({ kind: "channel", ...spec });
