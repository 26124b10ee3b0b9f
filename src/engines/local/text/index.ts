import type { Engine } from '../../types.js';
import { joinTextEngine } from './join.js';
import { jsonExtractEngine } from './jsonExtract.js';
import { markdownEngine } from './markdown.js';
import { splitTextEngine } from './split.js';
import { textTemplateEngine } from './template.js';
import { wordCountEngine } from './wordCount.js';

/** Text utilities: plain code, no model, instant. */
export const textEngines: Engine[] = [textTemplateEngine, jsonExtractEngine, splitTextEngine, joinTextEngine, markdownEngine, wordCountEngine];
