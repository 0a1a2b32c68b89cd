// counter_cmp: 20-bit event counter with a compare match at 500000 and a
// sticky overflow flag. Priority per cycle: clr (count and ovf to 0), then
// load (count <= load_val), then en (count + 1; counting past FFFFF wraps to
// 0 and sets ovf). match is high while count equals MATCH, past while count is
// above it. Asynchronous active-low reset clears count and ovf.
module counter_cmp (
    input  wire        clk,
    input  wire        rst_n,
    input  wire        clr,
    input  wire        load,
    input  wire [19:0] load_val,
    input  wire        en,
    output reg  [19:0] count,
    output wire        match,
    output wire        past,
    output reg         ovf
);
    localparam [19:0] MATCH = 20'd500000;

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            count <= 20'd0;
            ovf   <= 1'b0;
        end else if (clr) begin
            count <= 20'd0;
            ovf   <= 1'b0;
        end else if (load) begin
            count <= load_val;
        end else if (en) begin
            count <= count + 20'd1;
            if (count == 20'hFFFFF)
                ovf <= 1'b1;          // wrapped
        end
    end

    assign match = (count == MATCH);
    assign past  = (count > MATCH);
endmodule
