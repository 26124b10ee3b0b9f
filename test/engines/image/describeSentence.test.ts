import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { colorName } from '../../../src/engines/local/image/ml/colorNames.js';
import { countPhrase, describeScene, listPhrase, plural } from '../../../src/engines/local/image/ml/describeSentence.js';

const box = { x: 0, y: 0, width: 10, height: 10 };
const face = (age: number, emotion: string, score = 0.8) => ({
  score: 0.9, box, age, gender: null, genderScore: null, emotions: [{ emotion, score }], rotation: null,
  landmarks: { leftEye: [0, 0], rightEye: [0, 0], nose: [0, 0], mouth: [0, 0] } as Record<'leftEye' | 'rightEye' | 'nose' | 'mouth', [number, number]>,
});

describe('describe_image sentence templates', () => {
  it('counts and pluralises COCO labels', () => {
    assert.equal(plural('person', 2), 'people');
    assert.equal(plural('wine glass', 3), 'wine glasses');
    assert.equal(plural('bus', 2), 'buses');
    assert.equal(countPhrase('apple', 1), 'an apple');
    assert.equal(countPhrase('dog', 3), 'three dogs');
    assert.equal(countPhrase('cup', 12), '12 cups');
    assert.equal(listPhrase(['a', 'b', 'c']), 'a, b and c');
  });

  it('names colours plainly', () => {
    assert.equal(colorName({ r: 250, g: 250, b: 250 }), 'white');
    assert.equal(colorName({ r: 10, g: 10, b: 12 }), 'black');
    assert.equal(colorName({ r: 220, g: 30, b: 30 }), 'red');
    assert.equal(colorName({ r: 30, g: 60, b: 200 }), 'blue');
    assert.equal(colorName({ r: 110, g: 60, b: 20 }), 'brown');
  });

  it('writes one sentence per kind of evidence', () => {
    const s = describeScene({
      width: 800, height: 600,
      objects: [{ label: 'dog', score: 0.9, box }, { label: 'dog', score: 0.8, box }, { label: 'person', score: 0.9, box }, { label: 'frisbee', score: 0.6, box }],
      faces: [face(28, 'happy'), face(70, 'neutral', 0.1)],
      words: [{ text: 'PARK', confidence: 91, box }, { text: '~~', confidence: 20, box }],
      colors: [{ hex: '#2e7d32', rgb: [46, 125, 50], share: 0.6 }, { hex: '#87ceeb', rgb: [135, 206, 235], share: 0.3 }, { hex: '#fafafa', rgb: [250, 250, 250], share: 0.02 }],
    }, 'detailed');
    assert.equal(s, 'A landscape image showing two dogs, two people and a frisbee. Two faces are visible: a young adult (estimated age 28) who looks happy and an older adult (estimated age 70). Visible text reads “PARK”. The main colours are green and blue.');
  });

  it('says when nothing was recognised, and keeps brief descriptions short', () => {
    const s = describeScene({ width: 300, height: 300, objects: [], faces: [face(40, 'sad')], words: [], colors: [] }, 'brief');
    assert.equal(s, 'A square image showing a person.');
    const none = describeScene({ width: 300, height: 600, objects: [], faces: [], words: [], colors: [] }, 'detailed');
    assert.equal(none, 'A portrait image in which none of the 80 common object categories was recognised.');
  });
});
