// A page of headings, paragraphs and tables, rendered as Markdown or as one self-contained HTML
// file (inline CSS, no scripts, no network at view time). Tables written from one page model
// say the same thing in both forms.
//
// Paragraph and cell text is plain text in which `code` spans are marked with backticks and
// **bold** with double asterisks; both renderers keep those marks' meaning, and the HTML one
// escapes everything else. A figure is markup (inline SVG) shown by the HTML page only; the
// Markdown page gives its caption as a paragraph instead.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace schedlab {

struct PageTable {
  std::vector<std::string> header;
  std::vector<bool> right_aligned;  // per column (numbers); missing = left
  std::vector<std::vector<std::string>> rows;
  // Per row, the address the cell in `link_column` links to ("" or no entry: none). The HTML
  // page links that cell; the Markdown page shows the cell as it is.
  std::vector<std::string> links;
  std::size_t link_column = 0;
};

struct PageBlock {
  enum class Kind { kHeading, kParagraph, kTable, kFigure };
  Kind kind = Kind::kParagraph;
  int level = 2;     // headings: 1..3
  std::string text;  // headings and paragraphs; a figure's caption
  PageTable table;
  std::string markup;  // a figure's HTML (inline SVG), trusted and written as is
};

struct Page {
  std::string title;
  std::vector<PageBlock> blocks;

  void heading(int level, std::string text);
  void paragraph(std::string text);
  void table(PageTable table);
  void figure(std::string caption, std::string markup);
};

// GitHub-flavoured Markdown; '|' in cells is escaped, "<" that could open raw HTML is written
// "&lt;", and headings and cells are kept on one line. Ends with one newline.
std::string render_markdown(const Page& page);
// HTML5 with the report's look (docs/workflows.md "Report").
std::string render_html(const Page& page);

}  // namespace schedlab
