/** A template as the API shows it, and how its row is stored. */
import { fromJsonText, toBool, toJsonText } from "../../../platform/db/json-column";
import { EINK_HEIGHT, EINK_WIDTH } from "./canvas-size";
import type { ColorMode } from "./color-mode";
import type { Region } from "./region";

export interface EinkTemplate {
  id: number;
  name: string;
  description: string;
  font_filename: string | null;
  regions: Region[];
  is_default: boolean;
  color_mode: ColorMode;
  width: number;
  height: number;
  background_hash: string;
  preview_url: string;
  created_at: string;
  updated_at: string;
}

export interface TemplateRow {
  id: number;
  name: string;
  description: string;
  font_filename: string | null;
  regions_json: string;
  is_default: number | boolean;
  color_mode: string;
  background_hash: string;
  created_at: string;
  updated_at: string;
}

export const toTemplate = (row: TemplateRow): EinkTemplate => ({
  id: row.id,
  name: row.name,
  description: row.description,
  font_filename: row.font_filename,
  regions: fromJsonText<Region[]>(row.regions_json, []),
  is_default: toBool(row.is_default),
  color_mode: row.color_mode === "bw_dither" ? "bw_dither" : "rgb",
  width: EINK_WIDTH,
  height: EINK_HEIGHT,
  background_hash: row.background_hash,
  preview_url: `/api/v1/image/templates/${row.id}/preview`,
  created_at: row.created_at,
  updated_at: row.updated_at,
});

export const regionsToText = (regions: readonly Region[]): string => toJsonText(regions);
