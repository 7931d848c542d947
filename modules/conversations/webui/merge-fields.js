// SPDX-License-Identifier: MIT
/*
 * merge-fields.js: the merge fields a person may put in a message or a
 * saved reply ({{contact.first_name|there}}), filled by the server when
 * it is sent (merge.c), and putting text where a person is typing. Used
 * by the composer (inbox-thread.js) and the saved replies page.
 */

export const FIELDS = [['contact.first_name', 'First name'], ['contact.last_name', 'Last name'],
	['contact.name', 'Full name'], ['contact.email', 'E-mail'], ['contact.phone', 'Phone'],
	['contact.company_name', 'Company']];

/* `text` typed into `box` (a textarea or input) where its caret is, in
 * place of what is selected; the caret after it and the box told, as if
 * a person had typed it. */
export function insertAt(box, text) {
	const at = box.selectionStart ?? box.value.length;
	box.setRangeText(text, at, box.selectionEnd ?? at, 'end');
	box.focus();
	box.dispatchEvent(new Event('input', { bubbles: true }));
}

/* A select whose choice puts the field at `box`'s caret, then goes back
 * to its prompt. */
export function fieldPicker(select, box) {
	select.addEventListener('change', () => {
		if (select.value)
			insertAt(box, '{{' + select.value + '}}');
		select.value = '';
	});
}
