/** Save-time view of a template: what it reads and what is wrong with it. */
import type { PathReference } from "../conditions/ast";
import type { SyntaxErrorInfo } from "../conditions/errors";
import { compileTemplate } from "./compile";

export interface TemplateAnalysis {
  /** Every path read, with its offsets in the template text. */
  readonly references: readonly PathReference[];
  /** Syntax errors, including an unclosed `{{`, each with its position in the text. */
  readonly errors: readonly SyntaxErrorInfo[];
}

export function analyzeTemplate(text: string): TemplateAnalysis {
  const { references, errors } = compileTemplate(text);
  return { references, errors };
}
