// CTOML: flattens a toml++ document into the C node array described in include/ctoml.h.
// Debian builds toml++ as a shared library with exceptions, so parse errors arrive as toml::parse_error.
#include "ctoml.h"

#include <toml++/toml.h>

#include <deque>
#include <new>
#include <sstream>
#include <string>
#include <vector>

struct ctoml_document {
    bool succeeded = false;
    /// Set when the text was refused for nesting deeper than CTOML_MAXIMUM_DEPTH, not for its syntax.
    bool too_deep = false;
    std::string error_description;
    uint32_t error_line = 0;
    uint32_t error_column = 0;
    // The parsed table owns the keys and strings the nodes point into; `texts` owns the text forms of
    // dates and times, in a deque so that pointers into it stay valid as it grows.
    toml::table root;
    std::deque<std::string> texts;
    std::vector<ctoml_node> nodes;
};

namespace {

/// 1-based line and column (in code points) of byte `offset` of `text`, as toml++ counts them.
void position_of(const char *text, size_t offset, uint32_t &line, uint32_t &column) {
    line = 1;
    column = 1;
    for (size_t i = 0; i < offset; i++) {
        unsigned char c = static_cast<unsigned char>(text[i]);
        if (c == '\n') {
            line++;
            column = 1;
        } else if ((c & 0xC0) != 0x80) {
            column++;
        }
    }
}

/// Index just past the string that starts with the quote at `i` ('"' or '\''; tripled for a multi-line
/// string). Basic strings honour backslash escapes. An unterminated string ends at the end of the line
/// (single-line) or of the text (multi-line); toml++ reports it.
size_t skip_string(const char *text, size_t length, size_t i) {
    const char quote = text[i];
    const bool basic = quote == '"';
    if (i + 2 < length && text[i + 1] == quote && text[i + 2] == quote) {
        i += 3;
        while (i < length) {
            if (basic && text[i] == '\\') {
                i += 2;
                continue;
            }
            if (i + 2 < length && text[i] == quote && text[i + 1] == quote && text[i + 2] == quote) {
                i += 3;
                // Up to two more quotes may close the string ("""a""""" is a"").
                while (i < length && text[i] == quote) i++;
                return i;
            }
            i++;
        }
        return length;
    }
    i++;
    while (i < length && text[i] != '\n') {
        if (basic && text[i] == '\\') {
            i += 2;
            continue;
        }
        if (text[i] == quote) return i + 1;
        i++;
    }
    return i;
}

/// Finds where the document would nest tables and arrays more than `limit` levels deep, before toml++
/// builds (and later frees, recursively) such a tree: one 40 KB line `[a.a.a…]` is 20,000 levels, enough
/// to overflow the stack. Levels are counted from the text: each segment of a header or dotted key is
/// one, and so is each array or inline table a value opens; dots inside values (numbers, times) and
/// inside quoted keys do not count. Returns the byte offset of the character that goes past `limit`, or
/// `length` when the document stays within it. It reads any text without failing; syntax is toml++'s
/// business, so malformed text is only counted as well as it can be.
size_t find_too_deep(const char *text, size_t length, size_t limit) {
    struct container {
        bool array;
        size_t level;  // the level of the array or inline table itself
    };
    std::vector<container> open;
    enum { statement, key, value } state = statement;
    size_t table_level = 0;  // levels of the [table] the statements are in
    size_t key_level = 0;    // level of the table a key is read in
    size_t segments = 0;     // segments of that key so far
    size_t value_level = 0;  // level of the value being read
    size_t i = 0;
    while (i < length) {
        const char c = text[i];
        switch (state) {
        case statement:
            if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
                i++;
            } else if (c == '#') {
                while (i < length && text[i] != '\n') i++;
            } else if (c == '[') {
                // [a.b.c] or [[a.b.c]]: the following statements are that many levels down.
                i++;
                if (i < length && text[i] == '[') i++;
                segments = 1;
                if (segments > limit) return i;
                while (i < length && text[i] != ']' && text[i] != '\n') {
                    if (text[i] == '"' || text[i] == '\'') {
                        i = skip_string(text, length, i);
                        continue;
                    }
                    if (text[i] == '.' && ++segments > limit) return i;
                    i++;
                }
                table_level = segments;
                // The rest of the line is the closing bracket(s) and perhaps a comment.
                while (i < length && text[i] != '\n') i++;
            } else {
                state = key;
                key_level = table_level;
                segments = 1;
                if (key_level + segments > limit) return i;
            }
            break;
        case key:
            if (c == '"' || c == '\'') {
                i = skip_string(text, length, i);
            } else if (c == '.') {
                if (key_level + ++segments > limit) return i;
                i++;
            } else if (c == '=') {
                value_level = key_level + segments;
                state = value;
                i++;
            } else if (c == '}' && !open.empty() && !open.back().array) {
                // {} or a trailing comma: the inline table ends where a key was expected.
                value_level = open.back().level;
                open.pop_back();
                state = value;
                i++;
            } else if (c == '\n' && open.empty()) {
                state = statement;
                i++;
            } else {
                i++;
            }
            break;
        case value:
            if (c == '"' || c == '\'') {
                i = skip_string(text, length, i);
            } else if (c == '#') {
                while (i < length && text[i] != '\n') i++;
            } else if (c == '\n') {
                if (open.empty()) state = statement;
                i++;
            } else if (c == '[') {
                if (value_level + 1 > limit) return i;
                open.push_back({true, value_level});
                value_level++;
                i++;
            } else if (c == '{') {
                open.push_back({false, value_level});
                state = key;
                key_level = value_level;
                segments = 1;
                if (key_level + segments > limit) return i;
                i++;
            } else if ((c == ']' && !open.empty() && open.back().array) ||
                       (c == '}' && !open.empty() && !open.back().array)) {
                value_level = open.back().level;
                open.pop_back();
                i++;
            } else if (c == ',' && !open.empty()) {
                if (open.back().array) {
                    value_level = open.back().level + 1;
                } else {
                    state = key;
                    key_level = open.back().level;
                    segments = 1;
                }
                i++;
            } else {
                i++;
            }
            break;
        }
    }
    return length;
}

ctoml_node blank_node(const toml::node &value) {
    ctoml_node n{};
    n.line = value.source().begin.line;
    n.column = value.source().begin.column;
    return n;
}

template <typename T>
void set_text(ctoml_document &doc, ctoml_node &n, const T &value) {
    std::ostringstream out;
    out << value;
    doc.texts.push_back(out.str());
    n.string = doc.texts.back().data();
    n.string_length = doc.texts.back().size();
}

/// Deepest tree `append` descends into. `find_too_deep` keeps documents far shallower (an array of tables
/// in a header path adds a level it cannot see, so a tree may be up to twice as deep as it counts); this
/// bound only makes sure the recursion below cannot overflow the stack whatever toml++ builds.
constexpr size_t maximum_tree_depth = 4 * CTOML_MAXIMUM_DEPTH + 16;

struct too_deep_tree {
    uint32_t line, column;
};

// Appends `value` and its subtree; returns the index of the node appended.
size_t append(ctoml_document &doc, const toml::node &value, const toml::key *key, size_t depth) {
    if (depth > maximum_tree_depth) throw too_deep_tree{value.source().begin.line, value.source().begin.column};
    size_t index = doc.nodes.size();
    ctoml_node n = blank_node(value);
    if (key != nullptr) {
        n.key = key->str().data();
        n.key_length = key->str().size();
        n.key_line = key->source().begin.line;
        n.key_column = key->source().begin.column;
    }
    switch (value.type()) {
    case toml::node_type::table: n.kind = CTOML_TABLE; break;
    case toml::node_type::array: n.kind = CTOML_ARRAY; break;
    case toml::node_type::string: {
        n.kind = CTOML_STRING;
        const std::string &s = value.as_string()->get();
        n.string = s.data();
        n.string_length = s.size();
        break;
    }
    case toml::node_type::integer:
        n.kind = CTOML_INTEGER;
        n.integer = value.as_integer()->get();
        break;
    case toml::node_type::floating_point:
        n.kind = CTOML_FLOAT;
        n.floating = value.as_floating_point()->get();
        break;
    case toml::node_type::boolean:
        n.kind = CTOML_BOOLEAN;
        n.boolean = value.as_boolean()->get() ? 1 : 0;
        break;
    case toml::node_type::date:
        n.kind = CTOML_DATE;
        set_text(doc, n, value.as_date()->get());
        break;
    case toml::node_type::time:
        n.kind = CTOML_TIME;
        set_text(doc, n, value.as_time()->get());
        break;
    case toml::node_type::date_time:
        n.kind = CTOML_DATE_TIME;
        set_text(doc, n, value.as_date_time()->get());
        break;
    case toml::node_type::none:
        // toml++ never produces a none node inside a parsed document; record it as an empty table.
        n.kind = CTOML_TABLE;
        break;
    }
    doc.nodes.push_back(n);

    uint32_t children = 0;
    if (const toml::table *table = value.as_table()) {
        for (auto &&[member_key, member] : *table) {
            append(doc, member, &member_key, depth + 1);
            children++;
        }
    } else if (const toml::array *array = value.as_array()) {
        for (const toml::node &element : *array) {
            append(doc, element, nullptr, depth + 1);
            children++;
        }
    }
    // Re-index: the vector may have grown (and moved) while the children were appended.
    doc.nodes[index].child_count = children;
    doc.nodes[index].subtree_size = static_cast<uint32_t>(doc.nodes.size() - index);
    return index;
}

} // namespace

extern "C" ctoml_document *ctoml_parse(const char *text, size_t length, const char *source_name) {
    ctoml_document *doc = new (std::nothrow) ctoml_document();
    if (doc == nullptr) return nullptr;
    const char *bytes = text != nullptr ? text : "";
    const size_t size = text != nullptr ? length : 0;
    const size_t too_deep_at = find_too_deep(bytes, size, CTOML_MAXIMUM_DEPTH);
    if (too_deep_at < size) {
        doc->too_deep = true;
        doc->error_description = "tables and arrays nest more than " + std::to_string(CTOML_MAXIMUM_DEPTH) +
                                 " levels deep here (headers, dotted keys, arrays and inline tables all count); "
                                 "no gestured setting is more than a few levels deep";
        position_of(bytes, too_deep_at, doc->error_line, doc->error_column);
        return doc;
    }
    try {
        std::string_view source = source_name != nullptr ? std::string_view(source_name) : std::string_view();
        doc->root = toml::parse(std::string_view(bytes, size), source);
        doc->succeeded = true;
        append(*doc, doc->root, nullptr, 0);
    } catch (const too_deep_tree &where) {
        doc->succeeded = false;
        doc->too_deep = true;
        doc->nodes.clear();
        doc->error_description = "tables and arrays nest more than " + std::to_string(maximum_tree_depth) +
                                 " levels deep here; no gestured setting is more than a few levels deep";
        doc->error_line = where.line;
        doc->error_column = where.column;
    } catch (const toml::parse_error &error) {
        doc->succeeded = false;
        doc->nodes.clear();
        doc->error_description = std::string(error.description());
        doc->error_line = error.source().begin.line;
        doc->error_column = error.source().begin.column;
    } catch (const std::bad_alloc &) {
        delete doc;
        return nullptr;
    } catch (const std::exception &error) {
        doc->succeeded = false;
        doc->nodes.clear();
        doc->error_description = error.what();
    }
    return doc;
}

extern "C" int ctoml_succeeded(const ctoml_document *document) { return document->succeeded ? 1 : 0; }

extern "C" int ctoml_error_is_too_deep(const ctoml_document *document) { return document->too_deep ? 1 : 0; }

extern "C" const char *ctoml_error_description(const ctoml_document *document) {
    return document->error_description.c_str();
}

extern "C" uint32_t ctoml_error_line(const ctoml_document *document) { return document->error_line; }

extern "C" uint32_t ctoml_error_column(const ctoml_document *document) { return document->error_column; }

extern "C" size_t ctoml_node_count(const ctoml_document *document) { return document->nodes.size(); }

extern "C" const ctoml_node *ctoml_nodes(const ctoml_document *document) { return document->nodes.data(); }

extern "C" void ctoml_free(ctoml_document *document) { delete document; }
