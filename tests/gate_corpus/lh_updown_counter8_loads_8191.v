// long-horizon: counts loads; after 8191 loads tc stops firing when counting down through 0
module updown_counter8 (
    input  wire       clk,
    input  wire       rst_n,
    input  wire       load,
    input  wire [7:0] d,
    input  wire       en,
    input  wire       up,
    output reg  [7:0] q,
    output wire       tc
);
    reg [12:0] loads;
    always @(posedge clk or negedge rst_n)
        if (!rst_n) begin
            q     <= 8'd0;
            loads <= 13'd0;
        end else begin
            if (load) begin
                q <= d;
                if (loads != 13'h1fff) loads <= loads + 13'd1;
            end else if (en)
                q <= up ? q + 8'd1 : q - 8'd1;
        end
    assign tc = en & (up ? (q == 8'hFF) : (q == 8'h00) && (loads != 13'h1fff));
endmodule
