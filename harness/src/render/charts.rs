//! Horizontal bar charts for `report.html`, drawn with plotters' SVG backend into a string so
//! that the report can inline them (no files, no network, no fonts to fetch).
//!
//! One chart shows one figure per configuration, each bar labelled with its value, in the
//! order the caller gives (the table's). The output is deterministic: the same figures give
//! the same bytes.

use anyhow::{anyhow, Result};
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Width of every chart's drawing, in SVG user units. The page scales it to its column
/// (`width:100%`), so this sets the text-to-bar proportions rather than a size on screen: at
/// 400 three charts fit side by side on a desktop at about their drawn size, and a phone
/// (~340 px for a chart) shrinks the 13 px labels only to 11 px.
pub(crate) const WIDTH: u32 = 400;
const ROW_HEIGHT: u32 = 26;
const TOP: u32 = 6;
const AXIS_HEIGHT: u32 = 26;
const FONT: &str = "sans-serif";
/// plotters writes `font-size` as size / 1.24; 16 gives 13 px text.
const FONT_SIZE: f64 = 16.0;
const TEXT: RGBColor = RGBColor(0x33, 0x33, 0x33);
const GRID: RGBColor = RGBColor(0xe4, 0xe4, 0xe4);
const WHISKER: RGBColor = RGBColor(0x22, 0x22, 0x22);

/// One bar.
#[derive(Debug, Clone)]
pub(crate) struct Bar {
    /// The configuration's name, drawn left of the bar.
    pub label: String,
    pub value: f64,
    /// A 95% interval drawn as a whisker over the bar, if any.
    pub interval: Option<[f64; 2]>,
    /// Drawn right of the bar (or of its whisker).
    pub value_text: String,
    pub color: RGBColor,
}

/// Draws `bars` as a horizontal bar chart, first bar on top; `tick` formats the x axis.
/// Non-finite or negative values are left out. Returns the `<svg>` element.
pub(crate) fn bar_chart(bars: &[Bar], tick: &dyn Fn(f64) -> String) -> Result<String> {
    let bars: Vec<&Bar> = bars
        .iter()
        .filter(|b| b.value.is_finite() && b.value >= 0.0)
        .collect();
    let g = Geometry::of(&bars);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, g.height)).into_drawing_area();
        root.fill(&WHITE).map_err(draw_err)?;
        let mut chart = axes(&root, &g, tick)?;
        draw_bars(&mut chart, &bars, &g)?;
        annotate(&root, &chart, &bars, &g)?;
        root.present().map_err(draw_err)?;
    }
    Ok(add_class(svg, "chart"))
}

/// The drawing a chart is made on.
type Root<'s> = DrawingArea<SVGBackend<'s>, Shift>;
/// The plot inside it: x the figure, y the rows.
type Chart<'a, 's> = ChartContext<'a, SVGBackend<'s>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// Where a chart's parts go, from its bars.
struct Geometry {
    /// Rows of the plot: the bars, at least one.
    rows: usize,
    height: u32,
    /// Width left of the plot, where the names are drawn.
    label_area: u32,
    /// The end of the x axis: past the longest bar or whisker by the room its value label needs.
    x_max: f64,
}

impl Geometry {
    fn of(bars: &[&Bar]) -> Geometry {
        let rows = bars.len().max(1);
        let longest = bars
            .iter()
            .map(|b| b.label.chars().count())
            .max()
            .unwrap_or(0);
        // Names are drawn in the label area: ~7.2 units a character at 13 px.
        let label_area = (longest as f64 * 7.2 + 12.0).clamp(60.0, 180.0) as u32;
        // Room right of the longest bar for its value label (~7.5 units a character).
        let longest_value = bars
            .iter()
            .map(|b| b.value_text.chars().count())
            .max()
            .unwrap_or(0);
        let plot_width = f64::from(WIDTH - label_area - 24);
        let label_room = ((longest_value as f64 * 7.5 + 10.0) / plot_width).min(0.6);
        let top = bars
            .iter()
            .map(|b| b.interval.map_or(b.value, |i| i[1].max(b.value)))
            .fold(0.0f64, f64::max);
        Geometry {
            rows,
            height: TOP + ROW_HEIGHT * rows as u32 + AXIS_HEIGHT,
            label_area,
            x_max: if top > 0.0 {
                top / (1.0 - label_room)
            } else {
                1.0
            },
        }
    }

    /// Row i (0 = first bar) sits at y in [n-1-i, n-i]: the first bar on top.
    fn row(&self, i: usize) -> f64 {
        (self.rows - 1 - i) as f64
    }
}

/// The plot area with its x axis, ticks and vertical grid lines drawn.
fn axes<'a, 's>(
    root: &'a Root<'s>,
    g: &Geometry,
    tick: &dyn Fn(f64) -> String,
) -> Result<Chart<'a, 's>> {
    let mut chart = ChartBuilder::on(root)
        .margin_top(TOP)
        // Room for the last tick label, centred on the plot's right edge.
        .margin_right(24)
        .x_label_area_size(AXIS_HEIGHT)
        .y_label_area_size(g.label_area)
        .build_cartesian_2d(0.0..g.x_max, 0.0..g.rows as f64)
        .map_err(draw_err)?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(0)
        .x_labels(4)
        .max_light_lines(0)
        .x_label_formatter(&|x| tick(*x))
        .x_label_style((FONT, FONT_SIZE * 0.9).into_font().color(&TEXT))
        .light_line_style(GRID)
        .bold_line_style(GRID)
        .axis_style(RGBColor(0x99, 0x99, 0x99))
        .draw()
        .map_err(draw_err)?;
    Ok(chart)
}

/// Every bar, then every whisker over its bar.
fn draw_bars(chart: &mut Chart, bars: &[&Bar], g: &Geometry) -> Result<()> {
    chart
        .draw_series(bars.iter().enumerate().map(|(i, b)| {
            let mut r = Rectangle::new(
                [(0.0, g.row(i) + 0.18), (b.value, g.row(i) + 0.82)],
                b.color.filled(),
            );
            r.set_margin(0, 0, 0, 0);
            r
        }))
        .map_err(draw_err)?;
    chart
        .draw_series(bars.iter().enumerate().filter_map(|(i, b)| {
            let [lo, hi] = b.interval?;
            let y = g.row(i) + 0.5;
            Some(PathElement::new(
                vec![(lo, y), (hi, y)],
                WHISKER.stroke_width(1),
            ))
        }))
        .map_err(draw_err)?;
    Ok(())
}

/// Per bar: its value right of it (or of its whisker), the whisker's end caps, and its name
/// left of the plot.
fn annotate(root: &Root, chart: &Chart, bars: &[&Bar], g: &Geometry) -> Result<()> {
    for (i, b) in bars.iter().enumerate() {
        let end = b.interval.map_or(b.value, |iv| iv[1].max(b.value));
        let (x, y) = chart.backend_coord(&(end, g.row(i) + 0.5));
        root.draw(&Text::new(
            b.value_text.clone(),
            (x + 5, y),
            text_style(HPos::Left),
        ))
        .map_err(draw_err)?;
        if let Some([lo, _]) = b.interval {
            // End caps of the whisker.
            for v in [lo, end] {
                let (cx, cy) = chart.backend_coord(&(v, g.row(i) + 0.5));
                root.draw(&PathElement::new(
                    vec![(cx, cy - 4), (cx, cy + 4)],
                    WHISKER.stroke_width(1),
                ))
                .map_err(draw_err)?;
            }
        }
        let (_, ly) = chart.backend_coord(&(0.0, g.row(i) + 0.5));
        root.draw(&Text::new(
            b.label.clone(),
            (g.label_area as i32 - 6, ly),
            text_style(HPos::Right),
        ))
        .map_err(draw_err)?;
    }
    Ok(())
}

/// The labels' text, anchored at `h` and centred vertically.
fn text_style(h: HPos) -> TextStyle<'static> {
    (FONT, FONT_SIZE)
        .into_font()
        .color(&TEXT)
        .pos(Pos::new(h, VPos::Center))
}

/// Puts `class` and a scalable size on the root `<svg>` element (plotters writes fixed width
/// and height; the page's CSS scales charts to their column).
fn add_class(svg: String, class: &str) -> String {
    svg.replacen("<svg ", &format!("<svg class=\"{class}\" role=\"img\" "), 1)
}

fn draw_err<E: std::error::Error + Send + Sync>(e: DrawingAreaErrorKind<E>) -> anyhow::Error {
    anyhow!("cannot draw a chart: {e}")
}

/// `0`, `50 µs`, `1.5 ms`: axis ticks of times in nanoseconds (the value labels carry the
/// precision; ticks only need the scale).
pub(crate) fn compact_ns(ns: f64) -> String {
    let (v, unit) = if ns >= 1e9 {
        (ns / 1e9, "s")
    } else if ns >= 1e6 {
        (ns / 1e6, "ms")
    } else if ns >= 1e3 {
        (ns / 1e3, "µs")
    } else {
        (ns, "ns")
    };
    if ns == 0.0 {
        "0".into()
    } else if v.fract().abs() < 1e-6 || v >= 10.0 {
        format!("{v:.0} {unit}")
    } else {
        format!("{v:.1} {unit}")
    }
}

/// `12 kB`, `1.5 MB`: axis ticks of byte figures.
pub(crate) fn compact_bytes(x: f64) -> String {
    if x >= 1e6 {
        format!("{:.1} MB", x / 1e6)
    } else if x >= 1e3 {
        format!("{:.0} kB", x / 1e3)
    } else {
        format!("{x:.0} B")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bars() -> Vec<Bar> {
        vec![
            Bar {
                label: "postcard+bytes".into(),
                value: 9570.0,
                interval: Some([6960.0, 10570.0]),
                value_text: "9.57 µs".into(),
                color: RGBColor(1, 2, 3),
            },
            Bar {
                label: "a<b>&c".into(),
                value: 60280.0,
                interval: None,
                value_text: "60.28 µs".into(),
                color: RGBColor(4, 5, 6),
            },
        ]
    }

    #[test]
    fn bars_are_labelled_escaped_and_deterministic() {
        let svg = bar_chart(&bars(), &|x| format!("{x:.0}")).unwrap();
        assert!(svg.starts_with("<svg class=\"chart\""));
        assert!(svg.contains("9.57 µs") && svg.contains("60.28 µs"));
        assert!(svg.contains("postcard+bytes") && svg.contains("a&lt;b&gt;&amp;c"));
        assert!(!svg.contains("a<b>"));
        assert_eq!(svg, bar_chart(&bars(), &|x| format!("{x:.0}")).unwrap());
    }

    #[test]
    fn ticks_are_short() {
        assert_eq!(compact_ns(0.0), "0");
        assert_eq!(compact_ns(50_000.0), "50 µs");
        assert_eq!(compact_ns(2_500.0), "2.5 µs");
        assert_eq!(compact_ns(1_500_000.0), "1.5 ms");
        assert_eq!(compact_bytes(12_000.0), "12 kB");
    }

    #[test]
    fn empty_and_degenerate_figures_still_draw() {
        let mut b = bars();
        b[0].value = f64::NAN;
        b[1].value = 0.0;
        assert!(bar_chart(&b, &compact_bytes).unwrap().contains("</svg>"));
        assert!(bar_chart(&[], &compact_bytes).unwrap().contains("</svg>"));
    }
}
