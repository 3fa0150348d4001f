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

// Appends `value` and its subtree; returns the index of the node appended.
size_t append(ctoml_document &doc, const toml::node &value, const toml::key *key) {
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
            append(doc, member, &member_key);
            children++;
        }
    } else if (const toml::array *array = value.as_array()) {
        for (const toml::node &element : *array) {
            append(doc, element, nullptr);
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
    try {
        std::string_view source = source_name != nullptr ? std::string_view(source_name) : std::string_view();
        doc->root = toml::parse(std::string_view(text != nullptr ? text : "", text != nullptr ? length : 0),
                                source);
        doc->succeeded = true;
        append(*doc, doc->root, nullptr);
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

extern "C" const char *ctoml_error_description(const ctoml_document *document) {
    return document->error_description.c_str();
}

extern "C" uint32_t ctoml_error_line(const ctoml_document *document) { return document->error_line; }

extern "C" uint32_t ctoml_error_column(const ctoml_document *document) { return document->error_column; }

extern "C" size_t ctoml_node_count(const ctoml_document *document) { return document->nodes.size(); }

extern "C" const ctoml_node *ctoml_nodes(const ctoml_document *document) { return document->nodes.data(); }

extern "C" void ctoml_free(ctoml_document *document) { delete document; }
