// Renders a Helm chart the way `helm template` does, with Helm's engine (Go's text/template and
// the sprig functions, plus Helm's include, tpl, toYaml, required and fail), for offline checks
// where no helm binary is available. Not a Helm replacement: no dependencies, no lookup, no
// Capabilities, no schema validation (the check script validates values.schema.json itself).
//
// Usage: go run . <chart dir> <release name> <namespace> [values override files...]
package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig"
	"gopkg.in/yaml.v3"
)

type chart struct {
	Name, Version, AppVersion, Description string
}

type release struct {
	Name, Namespace, Service string
	IsInstall, IsUpgrade     bool
}

func main() {
	if len(os.Args) < 4 {
		fmt.Fprintln(os.Stderr, "usage: render <chart dir> <release name> <namespace> [values files...]")
		os.Exit(2)
	}
	out, err := render(os.Args[1], os.Args[2], os.Args[3], os.Args[4:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "render:", err)
		os.Exit(1)
	}
	fmt.Print(out)
}

func render(dir, releaseName, namespace string, overrides []string) (string, error) {
	var meta map[string]interface{}
	if err := readYaml(filepath.Join(dir, "Chart.yaml"), &meta); err != nil {
		return "", err
	}
	values := map[string]interface{}{}
	if err := readYaml(filepath.Join(dir, "values.yaml"), &values); err != nil {
		return "", err
	}
	for _, file := range overrides {
		override := map[string]interface{}{}
		if err := readYaml(file, &override); err != nil {
			return "", err
		}
		merge(values, override)
	}
	top := map[string]interface{}{
		"Values":  values,
		"Chart":   chart{Name: str(meta["name"]), Version: str(meta["version"]), AppVersion: str(meta["appVersion"]), Description: str(meta["description"])},
		"Release": release{Name: releaseName, Namespace: namespace, Service: "Helm", IsInstall: true},
	}

	root := template.New("chart").Option("missingkey=zero")
	funcs := sprig.TxtFuncMap()
	funcs["include"] = func(name string, data interface{}) (string, error) {
		var buf bytes.Buffer
		err := root.ExecuteTemplate(&buf, name, data)
		return buf.String(), err
	}
	funcs["tpl"] = func(text string, data interface{}) (string, error) {
		t, err := root.Clone()
		if err != nil {
			return "", err
		}
		t, err = t.New("tpl").Parse(text)
		if err != nil {
			return "", err
		}
		var buf bytes.Buffer
		err = t.Execute(&buf, data)
		return buf.String(), err
	}
	funcs["toYaml"] = toYaml
	funcs["required"] = func(message string, value interface{}) (interface{}, error) {
		if value == nil || value == "" {
			return nil, errors.New(message)
		}
		return value, nil
	}
	funcs["fail"] = func(message string) (string, error) { return "", errors.New(message) }
	root.Funcs(funcs)

	files, err := filepath.Glob(filepath.Join(dir, "templates", "*"))
	if err != nil {
		return "", err
	}
	sort.Strings(files)
	for _, file := range files {
		text, err := os.ReadFile(file)
		if err != nil {
			return "", err
		}
		if _, err := root.New(filepath.Base(file)).Parse(string(text)); err != nil {
			return "", err
		}
	}
	var out strings.Builder
	for _, file := range files {
		name := filepath.Base(file)
		if strings.HasPrefix(name, "_") {
			continue
		}
		var buf bytes.Buffer
		if err := root.ExecuteTemplate(&buf, name, top); err != nil {
			return "", err
		}
		text := strings.ReplaceAll(buf.String(), "<no value>", "")
		if name == "NOTES.txt" || strings.TrimSpace(text) == "" {
			continue
		}
		fmt.Fprintf(&out, "---\n# Source: %s/templates/%s\n%s\n", str(meta["name"]), name, strings.TrimSpace(text))
	}
	return out.String(), nil
}

func readYaml(file string, into interface{}) error {
	text, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	return yaml.Unmarshal(text, into)
}

// merge copies override into base, recursing into maps (Helm's coalescing of values files).
func merge(base, override map[string]interface{}) {
	for key, value := range override {
		if sub, ok := value.(map[string]interface{}); ok {
			if existing, ok := base[key].(map[string]interface{}); ok {
				merge(existing, sub)
				continue
			}
		}
		base[key] = value
	}
}

func toYaml(value interface{}) string {
	var buf bytes.Buffer
	encoder := yaml.NewEncoder(&buf)
	encoder.SetIndent(2)
	if err := encoder.Encode(value); err != nil {
		return ""
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

func str(value interface{}) string {
	if value == nil {
		return ""
	}
	return fmt.Sprint(value)
}
