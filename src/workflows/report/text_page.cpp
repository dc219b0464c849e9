// Page rendering: Markdown and HTML from one page model (schedlab/text_page.hpp).
#include "schedlab/text_page.hpp"

#include <cctype>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "schedlab/report_svg.hpp"

namespace schedlab {

namespace {

constexpr const char* kPageStyle = R"CSS(
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;margin:24px auto;max-width:1320px;padding:0 16px;color:#222;background:#fff}
h1{font-size:22px;margin:0 0 6px} h2{font-size:17px;margin:28px 0 10px;border-bottom:1px solid #ddd;padding-bottom:4px}
h3{font-size:14px;margin:16px 0 6px} p{font-size:13px;color:#333;margin:6px 0;max-width:1000px}
code{font-family:ui-monospace,monospace;font-size:12px;background:#f4f4f4;padding:0 3px}
table{border-collapse:collapse;font-size:12.5px;margin:8px 0} th,td{border:1px solid #e3e3e3;padding:3px 8px}
th{background:#f7f7f7} td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
figure{margin:14px 0;max-width:760px} figcaption{font-size:12px;color:#555}
)CSS";

// Inline marks to HTML: `code` and **bold**; everything else escaped.
std::string inline_html(const std::string& text) {
  std::string out;
  bool code = false;
  bool bold = false;
  std::string run;
  auto flush = [&]() {
    out += markup_escape(run);
    run.clear();
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '`') {
      flush();
      out += code ? "</code>" : "<code>";
      code = !code;
    } else if (!code && text.compare(i, 2, "**") == 0) {
      flush();
      out += bold ? "</b>" : "<b>";
      bold = !bold;
      ++i;
    } else {
      run += text[i];
    }
  }
  flush();
  if (code) out += "</code>";
  if (bold) out += "</b>";
  return out;
}

// Text as Markdown shows it literally where it could open raw HTML or an autolink: "<" before
// a letter, '/', '!' or '?' becomes "&lt;" (names from suites and traces are not markup).
// `one_line`: line breaks and other control characters become spaces (headings, cells).
std::string markdown_text(const std::string& text, bool one_line) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const char next = i + 1 < text.size() ? text[i + 1] : '\0';
    if (c == '<' && (std::isalpha(static_cast<unsigned char>(next)) != 0 || next == '/' ||
                     next == '!' || next == '?'))
      out += "&lt;";
    else if (one_line && (static_cast<unsigned char>(c) < 0x20 || c == 0x7f))
      out += ' ';
    else
      out += c;
  }
  return out;
}

std::string markdown_cell(const std::string& text) {
  std::string out;
  for (char c : markdown_text(text, true)) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

bool right_aligned(const PageTable& table, std::size_t column) {
  return column < table.right_aligned.size() && table.right_aligned[column];
}

}  // namespace

void Page::heading(int level, std::string text) {
  PageBlock block;
  block.kind = PageBlock::Kind::kHeading;
  block.level = level;
  block.text = std::move(text);
  blocks.push_back(std::move(block));
}

void Page::paragraph(std::string text) {
  PageBlock block;
  block.kind = PageBlock::Kind::kParagraph;
  block.text = std::move(text);
  blocks.push_back(std::move(block));
}

void Page::table(PageTable table) {
  PageBlock block;
  block.kind = PageBlock::Kind::kTable;
  block.table = std::move(table);
  blocks.push_back(std::move(block));
}

void Page::figure(std::string caption, std::string markup) {
  PageBlock block;
  block.kind = PageBlock::Kind::kFigure;
  block.text = std::move(caption);
  block.markup = std::move(markup);
  blocks.push_back(std::move(block));
}

std::string render_markdown(const Page& page) {
  std::string out;
  for (const auto& block : page.blocks) {
    if (!out.empty()) out += '\n';
    switch (block.kind) {
      case PageBlock::Kind::kHeading:
        out += std::string(static_cast<std::size_t>(block.level), '#') + ' ' +
               markdown_text(block.text, true) + '\n';
        break;
      case PageBlock::Kind::kParagraph: out += markdown_text(block.text, false) + '\n'; break;
      case PageBlock::Kind::kFigure:
        out += "Chart (in the HTML page): " + markdown_text(block.text, false) + '\n';
        break;
      case PageBlock::Kind::kTable: {
        const PageTable& t = block.table;
        out += '|';
        for (const auto& h : t.header) out += ' ' + markdown_cell(h) + " |";
        out += "\n|";
        for (std::size_t c = 0; c < t.header.size(); ++c)
          out += right_aligned(t, c) ? "---:|" : "---|";
        out += '\n';
        for (const auto& row : t.rows) {
          out += '|';
          for (const auto& cell : row) out += ' ' + markdown_cell(cell) + " |";
          out += '\n';
        }
        break;
      }
    }
  }
  return out;
}

std::string render_html(const Page& page) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += fmt::format("<title>{}</title>\n<style>{}{}</style>\n</head>\n<body>\n",
                     markup_escape(page.title), kPageStyle, report::kChartStyle);
  for (const auto& block : page.blocks) {
    switch (block.kind) {
      case PageBlock::Kind::kHeading:
        out += fmt::format("<h{0}>{1}</h{0}>\n", block.level, inline_html(block.text));
        break;
      case PageBlock::Kind::kParagraph: out += "<p>" + inline_html(block.text) + "</p>\n"; break;
      case PageBlock::Kind::kFigure:
        out += "<figure>\n" + block.markup + "\n<figcaption>" + inline_html(block.text) +
               "</figcaption>\n</figure>\n";
        break;
      case PageBlock::Kind::kTable: {
        const PageTable& t = block.table;
        out += "<table>\n<thead><tr>";
        for (std::size_t c = 0; c < t.header.size(); ++c)
          out += fmt::format("<th{}>{}</th>", right_aligned(t, c) ? " class=\"num\"" : "",
                             inline_html(t.header[c]));
        out += "</tr></thead>\n<tbody>\n";
        for (std::size_t r = 0; r < t.rows.size(); ++r) {
          const auto& row = t.rows[r];
          const std::string link = r < t.links.size() ? t.links[r] : std::string();
          out += "<tr>";
          for (std::size_t c = 0; c < row.size(); ++c) {
            const std::string text = inline_html(row[c]);
            out += fmt::format("<td{}>{}</td>", right_aligned(t, c) ? " class=\"num\"" : "",
                               c == t.link_column && !link.empty()
                                   ? fmt::format("<a href=\"{}\">{}</a>", markup_escape(link), text)
                                   : text);
          }
          out += "</tr>\n";
        }
        out += "</tbody>\n</table>\n";
        break;
      }
    }
  }
  return out + "</body>\n</html>\n";
}

}  // namespace schedlab
