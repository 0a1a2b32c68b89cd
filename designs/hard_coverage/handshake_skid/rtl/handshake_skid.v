// handshake_skid: valid/ready pipeline stage with a one-entry skid buffer.
// The output register (out_valid/out_data) holds the word offered downstream;
// the skid register catches the word accepted in the cycle the output stalls,
// so in_ready can be a register (in_ready = !skid_valid). Data is never lost,
// duplicated or reordered. Status: occupancy (0..2 words), a saturating count
// of consecutive stalled cycles (out_valid && !out_ready) with a flag when it
// reaches STALL_N, and an 8-bit wrapping count of words delivered.
module handshake_skid (
    input  wire       clk,
    input  wire       rst_n,
    input  wire       in_valid,
    input  wire [7:0] in_data,
    output wire       in_ready,
    output reg        out_valid,
    output reg  [7:0] out_data,
    input  wire       out_ready,
    output wire [1:0] occupancy,
    output wire       stall_flag,
    output reg  [7:0] xfer_count
);
    localparam [4:0] STALL_N = 5'd20;   // a stall this long raises stall_flag

    reg       skid_valid;
    reg [7:0] skid_data;
    reg [4:0] stall_cnt;                // saturates at 31

    assign in_ready   = ~skid_valid;
    assign occupancy  = {1'b0, out_valid} + {1'b0, skid_valid};
    assign stall_flag = (stall_cnt >= STALL_N);

    wire out_fire = out_valid & out_ready;

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            out_valid  <= 1'b0;
            out_data   <= 8'd0;
            skid_valid <= 1'b0;
            skid_data  <= 8'd0;
        end else if (skid_valid) begin
            // skid full (in_ready low): it moves to the output when that drains
            if (out_ready) begin
                out_data   <= skid_data;
                skid_valid <= 1'b0;
            end
        end else if (out_valid && !out_ready) begin
            // output stalled: a word accepted now goes to the skid buffer
            if (in_valid) begin
                skid_data  <= in_data;
                skid_valid <= 1'b1;
            end
        end else begin
            // output empty or draining: load it straight from the input
            out_valid <= in_valid;
            if (in_valid) out_data <= in_data;
        end
    end

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            stall_cnt  <= 5'd0;
            xfer_count <= 8'd0;
        end else begin
            if (out_valid && !out_ready) begin
                if (stall_cnt != 5'd31) stall_cnt <= stall_cnt + 5'd1;
            end else begin
                stall_cnt <= 5'd0;
            end
            if (out_fire) xfer_count <= xfer_count + 8'd1;
        end
    end
endmodule
