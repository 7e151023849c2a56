package main

import "unicode/utf8"

// fitRow returns text cut to width characters, the last of them an ellipsis, if it is longer.
func fitRow(text string, width int) string {
	if utf8.RuneCountInString(text) <= width {
		return text
	}
	r := []rune(text)
	return string(r[:width-1]) + "…"
}
